package v1beta1

import "testing"

func TestHostedControlPlaneNamespace(t *testing.T) {
	tests := []struct {
		namespace, name, want string
	}{
		{"clusters", "foo", "clusters-foo"},
		{"clusters", "foo.bar", "clusters-foo-bar"},
		{"clusters", "a.b.c", "clusters-a-b-c"},
		{"team-a", "my-cluster", "team-a-my-cluster"},
		{"clusters", "already-dashed.name", "clusters-already-dashed-name"},
	}
	for _, tt := range tests {
		t.Run(tt.namespace+"/"+tt.name, func(t *testing.T) {
			if got := HostedControlPlaneNamespace(tt.namespace, tt.name); got != tt.want {
				t.Errorf("HostedControlPlaneNamespace(%q, %q) = %q, want %q", tt.namespace, tt.name, got, tt.want)
			}
		})
	}
}

func TestClusterAnnotation(t *testing.T) {
	if got := ClusterAnnotationValue("clusters", "foo.bar"); got != "clusters/foo.bar" {
		t.Errorf("ClusterAnnotationValue = %q", got)
	}
	tests := []struct {
		value         string
		wantNamespace string
		wantName      string
		wantOK        bool
	}{
		{"clusters/foo", "clusters", "foo", true},
		{"clusters/foo.bar", "clusters", "foo.bar", true},
		{"clusters", "", "", false},
		{"/foo", "", "", false},
		{"clusters/", "", "", false},
		{"a/b/c", "", "", false},
		{"", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			ns, name, ok := ParseClusterAnnotation(tt.value)
			if ns != tt.wantNamespace || name != tt.wantName || ok != tt.wantOK {
				t.Errorf("ParseClusterAnnotation(%q) = (%q, %q, %v), want (%q, %q, %v)",
					tt.value, ns, name, ok, tt.wantNamespace, tt.wantName, tt.wantOK)
			}
		})
	}
}

func TestClusterTagKey(t *testing.T) {
	if got, want := ClusterTagKey("demo-x7k2p"), "kubernetes.io/cluster/demo-x7k2p"; got != want {
		t.Errorf("ClusterTagKey = %q, want %q", got, want)
	}
}

// TestWireNames pins the names other programs and clouds see; changing one
// is an API break.
func TestWireNames(t *testing.T) {
	for got, want := range map[string]string{
		GroupVersion.String(): "hcplink.io/v1beta1",
		ClusterAnnotation:     "hcplink.io/cluster",
		OperatorFinalizer:     "hcplink.io/operator-cleanup",
		ControlPlaneFinalizer: "hcplink.io/control-plane-cleanup",
		EndpointServiceTagKey: "hcplink.io/endpoint-service",
		ClusterTagKeyPrefix:   "kubernetes.io/cluster/",
		ClusterTagValueOwned:  "owned",
	} {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}
