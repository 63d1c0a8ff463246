package devenv

import (
	"reflect"
	"sort"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// TestPlatformArg: the kubelet stand-in runs the control-plane operator
// for the platform its container's arguments name, as the pod would.
func TestPlatformArg(t *testing.T) {
	deployment := func(containers ...corev1.Container) *appsv1.Deployment {
		d := &appsv1.Deployment{}
		d.Spec.Template.Spec.Containers = containers
		return d
	}
	for _, tt := range []struct {
		name string
		d    *appsv1.Deployment
		want string
	}{
		{"as rendered", deployment(corev1.Container{Args: []string{"control-plane-operator", "--namespace", "clusters-demo", "--platform", "GCP"}}), "GCP"},
		{"with an equals sign", deployment(corev1.Container{Args: []string{"control-plane-operator", "--platform=Azure", "--namespace", "clusters-demo"}}), "Azure"},
		{"an older operator's: none", deployment(corev1.Container{Args: []string{"control-plane-operator", "--namespace", "clusters-demo"}}), ""},
		{"a trailing flag without a value", deployment(corev1.Container{Args: []string{"control-plane-operator", "--platform"}}), ""},
		{"no container", deployment(), ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := platformArg(tt.d); got != tt.want {
				t.Errorf("platformArg = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestCloudSettingsOnlyOfItsPlatform: an operator started for one platform
// gets that platform's settings only; one started without --platform gets
// every platform's.
func TestCloudSettingsOnlyOfItsPlatform(t *testing.T) {
	r := &cpoRunner{workDir: t.TempDir()}
	for _, tt := range []struct {
		platform string
		want     []string
	}{
		{"AWS", []string{"AWS"}},
		{"GCP", []string{"GCP"}},
		{"", []string{"AWS", "Azure", "GCP"}},
	} {
		t.Run(tt.platform, func(t *testing.T) {
			settings, err := r.cloudSettings(t.Context(), "clusters-demo", cpoIdentity{platform: tt.platform})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for name := range settings {
				got = append(got, name)
			}
			sort.Strings(got)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("settings of %v, want %v", got, tt.want)
			}
		})
	}
}
