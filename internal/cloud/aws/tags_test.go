package aws

import (
	"reflect"
	"strings"
	"testing"
)

func TestClientToken(t *testing.T) {
	a := ClientToken("vpc-endpoint", "uid-1", 0)
	if len(a) > 64 {
		t.Fatalf("token %q is longer than EC2's 64 characters", a)
	}
	if a != ClientToken("vpc-endpoint", "uid-1", 0) {
		t.Fatal("the same inputs gave two tokens")
	}
	for _, other := range []string{
		ClientToken("vpc-endpoint", "uid-2", 0),
		ClientToken("vpc-endpoint", "uid-1", 1),
		ClientToken("security-group", "uid-1", 0),
	} {
		if other == a {
			t.Fatalf("different inputs gave the same token %q", a)
		}
	}
}

func TestTagRoundTripIsSorted(t *testing.T) {
	tags := EC2Tags(map[string]string{"b": "2", "a": "1", "c": "3"})
	var keys []string
	for _, tag := range tags {
		keys = append(keys, *tag.Key)
	}
	if strings.Join(keys, ",") != "a,b,c" {
		t.Fatalf("keys in order %v, want a,b,c", keys)
	}
	if got := TagMap(tags); !reflect.DeepEqual(got, map[string]string{"a": "1", "b": "2", "c": "3"}) {
		t.Fatalf("round trip gave %v", got)
	}
}

func TestTagDiff(t *testing.T) {
	ours := func(k string) bool { return !strings.HasPrefix(k, "customer/") }
	tests := []struct {
		name            string
		desired, actual map[string]string
		set             map[string]string
		remove          []string
	}{
		{"nothing to do", map[string]string{"a": "1"}, map[string]string{"a": "1"}, map[string]string{}, nil},
		{"missing and changed", map[string]string{"a": "1", "b": "2"}, map[string]string{"a": "0"}, map[string]string{"a": "1", "b": "2"}, nil},
		{"stale tag of ours removed", map[string]string{"a": "1"}, map[string]string{"a": "1", "old": "x"}, map[string]string{}, []string{"old"}},
		{"customer's tag left alone", map[string]string{}, map[string]string{"customer/team": "x"}, map[string]string{}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			set, remove := TagDiff(tc.desired, tc.actual, ours)
			if !reflect.DeepEqual(set, tc.set) || !reflect.DeepEqual(remove, tc.remove) {
				t.Fatalf("TagDiff = %v, %v; want %v, %v", set, remove, tc.set, tc.remove)
			}
		})
	}
}
