package soak

import (
	"os"
	"path/filepath"
	"testing"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/devenv"
)

func TestAllowOtherNamesAnotherAccountThanTheClusters(t *testing.T) {
	for _, tc := range []struct {
		account, want string
	}{
		{devenv.CustomerAccount, devenv.SecondCustomerAccount},
		{devenv.SecondCustomerAccount, devenv.CustomerAccount},
		{devenv.CustomerAccountID(3), devenv.SecondCustomerAccount},
	} {
		hc := &hcplinkv1beta1.HostedCluster{Spec: hcplinkv1beta1.HostedClusterSpec{Platform: hcplinkv1beta1.PlatformSpec{
			AWS: &hcplinkv1beta1.AWSPlatformSpec{RolesRef: &hcplinkv1beta1.AWSRolesRef{
				ControlPlaneOperatorARN: "arn:aws:iam::" + tc.account + ":role/soak-001-control-plane-operator"}}}}}
		awsPlatform{}.allowOther(hc, true)
		if got := hc.Spec.Platform.AWS.AdditionalAllowedPrincipals; len(got) != 1 || got[0] != "arn:aws:iam::"+tc.want+":root" {
			t.Errorf("a cluster in %s allows %v, want the root of %s", tc.account, got, tc.want)
		}
		awsPlatform{}.allowOther(hc, false)
		if got := hc.Spec.Platform.AWS.AdditionalAllowedPrincipals; len(got) != 0 {
			t.Errorf("allowOther(false) left %v", got)
		}
	}
}

func TestPlatformsForCarriesTheCustomerAccounts(t *testing.T) {
	ps, err := platformsFor(Options{Platform: PlatformAll, CustomerAccounts: 4})
	if err != nil {
		t.Fatal(err)
	}
	if got := ps[0].devenvOptions(Options{}).CustomerAccounts; got != 4 {
		t.Errorf("AWS devenv seeds %d customer accounts, want 4", got)
	}
	if _, err := platformsFor(Options{Platform: "gcp-typo"}); err == nil {
		t.Error("an unknown platform was accepted")
	}
}

func TestOperatorLoggerMakesItsDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "logs", "run-1")
	_, done, err := operatorLogger(dir, "aws")
	if err != nil {
		t.Fatalf("a log directory that does not exist yet: %v", err)
	}
	done()
	if _, err := os.Stat(filepath.Join(dir, "aws-operators.log")); err != nil {
		t.Error(err)
	}
}
