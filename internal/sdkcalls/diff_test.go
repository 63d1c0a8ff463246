package sdkcalls

import (
	"slices"
	"testing"
)

func TestDiff(t *testing.T) {
	tests := []struct {
		name                    string
		called, granted         []string
		wantMissing, wantUnused []string
	}{
		{"equal", []string{"a", "b"}, []string{"a", "b"}, nil, nil},
		{"one missing", []string{"a", "b"}, []string{"a"}, []string{"b"}, nil},
		{"one unused", []string{"a"}, []string{"a", "c"}, nil, []string{"c"}},
		{"both", []string{"a", "b"}, []string{"a", "c"}, []string{"b"}, []string{"c"}},
		{"nothing called", nil, []string{"a"}, nil, []string{"a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			missing, unused := Diff(tt.called, tt.granted)
			if !slices.Equal(missing, tt.wantMissing) || !slices.Equal(unused, tt.wantUnused) {
				t.Errorf("Diff(%v, %v) = %v, %v; want %v, %v", tt.called, tt.granted, missing, unused, tt.wantMissing, tt.wantUnused)
			}
		})
	}
}
