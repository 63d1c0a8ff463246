package e2eazure

import (
	"context"
	"testing"

	"github.com/hcplink/hcplink/test/e2eutil"
)

// TestManagementOperatorRunsAsItsServiceAccount: devenv's management
// operator reaches the API server with a token of the ServiceAccount
// `hcplink install` renders and nothing else, so every scenario here runs
// it under exactly the shipped ClusterRole; an administrator's
// configuration (a client certificate, an impersonation) fails this.
func TestManagementOperatorRunsAsItsServiceAccount(t *testing.T) {
	t.Parallel()
	if err := e2eutil.CheckManagementOperatorIdentity(context.Background(), env); err != nil {
		t.Fatal(err)
	}
}
