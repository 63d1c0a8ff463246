package gcpiam_test

import (
	"testing"

	"github.com/hcplink/hcplink/internal/infra/gcpiam"
)

func TestNames(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{gcpiam.ServiceAccountID("private-ab12c"), "cpo-private-ab12c"},
		// 30 characters at most, no trailing hyphen.
		{gcpiam.ServiceAccountID("a-very-long-infra-id-of-a-cluster"), "cpo-a-very-long-infra-id-of-a"},
		{gcpiam.ServiceAccountID("Upper"), "cpo-upper"},
		{gcpiam.Subject("clusters", "demo"), "system:serviceaccount:clusters-demo:control-plane-operator"},
		// One provider per management cluster, the same each time, within
		// a provider ID's 32 characters.
		{gcpiam.ProviderID("https://oidc.a.example.com"), gcpiam.ProviderID("https://oidc.a.example.com")},
		{map[bool]string{true: "differs"}[gcpiam.ProviderID("https://a") != gcpiam.ProviderID("https://b")], "differs"},
		{map[bool]string{true: "fits"}[len(gcpiam.ProviderID("https://a")) <= 32], "fits"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
