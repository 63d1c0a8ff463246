package azure_test

import (
	"net"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	azcloud "github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"github.com/hcplink/hcplink/internal/cloud"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
)

// TestAHungCallEndsAtItsTimeout: an ARM endpoint that accepts connections
// and never answers holds a call no longer than the provider's per-call
// timeout, and the error is a transient server error.
func TestAHungCallEndsAtItsTimeout(t *testing.T) {
	w := newWorld(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { ln.Close(); <-done })
	go func() {
		defer close(done)
		var held []net.Conn // held open, never answered
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	cfg := w.f.AzureCloud()
	rm := cfg.Services[azcloud.ResourceManager]
	rm.Endpoint = "https://" + ln.Addr().String()
	cfg.Services[azcloud.ResourceManager] = rm
	opts := &arm.ClientOptions{ClientOptions: policy.ClientOptions{Cloud: cfg, Transport: w.f.AzureHTTPClient(), Retry: policy.RetryOptions{MaxRetries: -1}}}
	p, err := azurecloud.NewProviders(cloudsimtest.ProviderSubscription, w.f.AzureAdminCredential(t), opts)
	if err != nil {
		t.Fatal(err)
	}
	p.PrivateLinkServices.Timeouts = azurecloud.Timeouts{Call: 300 * time.Millisecond, List: 300 * time.Millisecond}
	began := time.Now()
	_, err = p.PrivateLinkServices.Get(w.ctx, mgmtRG, "pls")
	if took := time.Since(began); took > 5*time.Second {
		t.Errorf("a hung call took %v with a 300 ms timeout", took)
	}
	if cloud.ClassOf(err) != cloud.ClassServerError {
		t.Errorf("a hung call: %v (class %s), want a server error", err, cloud.ClassOf(err))
	}
	began = time.Now()
	_, err = p.PrivateLinkServices.FindFrontendsByIP(w.ctx, azurecloud.LoadBalancerScope{ResourceGroup: mgmtRG}, routerIP)
	if took := time.Since(began); took > 5*time.Second || cloud.ClassOf(err) != cloud.ClassServerError {
		t.Errorf("a hung listing: %v after %v", err, took)
	}
}
