package gcpiam

import (
	"reflect"
	"testing"

	crm "google.golang.org/api/cloudresourcemanager/v1"
)

func TestWithMember(t *testing.T) {
	const role, sa, other = "projects/p/roles/r", "serviceAccount:a@p.iam.gserviceaccount.com", "user:b@example.com"
	cond := &crm.Expr{Expression: `resource.name.startsWith("x")`}
	for _, tc := range []struct {
		name        string
		in          []*crm.Binding
		add         bool
		want        []*crm.Binding
		wantChanged bool
	}{
		{"added as a new binding", nil, true, []*crm.Binding{{Role: role, Members: []string{sa}}}, true},
		{"added beside another member", []*crm.Binding{{Role: role, Members: []string{other}}}, true,
			[]*crm.Binding{{Role: role, Members: []string{other, sa}}}, true},
		{"already there", []*crm.Binding{{Role: role, Members: []string{sa}}}, true, []*crm.Binding{{Role: role, Members: []string{sa}}}, false},
		{"a conditional binding is not ours to extend", []*crm.Binding{{Role: role, Members: []string{other}, Condition: cond}}, true,
			[]*crm.Binding{{Role: role, Members: []string{other}, Condition: cond}, {Role: role, Members: []string{sa}}}, true},
		{"removed, the other member kept", []*crm.Binding{{Role: role, Members: []string{other, sa}}}, false,
			[]*crm.Binding{{Role: role, Members: []string{other}}}, true},
		{"removed, the empty binding dropped", []*crm.Binding{{Role: "roles/viewer", Members: []string{other}}, {Role: role, Members: []string{sa}}}, false,
			[]*crm.Binding{{Role: "roles/viewer", Members: []string{other}}}, true},
		{"a conditional binding of the member is left", []*crm.Binding{{Role: role, Members: []string{sa}, Condition: cond}}, false,
			[]*crm.Binding{{Role: role, Members: []string{sa}, Condition: cond}}, false},
		{"absent", []*crm.Binding{{Role: role, Members: []string{other}}}, false, []*crm.Binding{{Role: role, Members: []string{other}}}, false},
	} {
		got, changed := withMember(tc.in, projectBindingParts, newProjectBinding, binding{role, sa}, tc.add)
		if changed != tc.wantChanged || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %v (changed %v), want %v (changed %v)", tc.name, render(got), changed, render(tc.want), tc.wantChanged)
		}
	}
}

func render(bs []*crm.Binding) []crm.Binding {
	out := make([]crm.Binding, 0, len(bs))
	for _, b := range bs {
		out = append(out, *b)
	}
	return out
}
