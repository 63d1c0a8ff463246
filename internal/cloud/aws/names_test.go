package aws

import (
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
)

func TestEndpointRecordNames(t *testing.T) {
	hcp := func(api hcplinkv1beta1.PublishingStrategyType) *hcplinkv1beta1.HostedControlPlane {
		return &hcplinkv1beta1.HostedControlPlane{ObjectMeta: metav1.ObjectMeta{Name: "c1"}, Spec: hcplinkv1beta1.HostedControlPlaneSpec{
			Services: []hcplinkv1beta1.ServicePublishingStrategyMapping{{Service: hcplinkv1beta1.APIServer, ServicePublishingStrategy: hcplinkv1beta1.ServicePublishingStrategy{Type: api}}}}}
	}
	tests := []struct {
		cr   string
		api  hcplinkv1beta1.PublishingStrategyType
		want []string
	}{
		{"private-router", hcplinkv1beta1.RoutePublishing, []string{"*.apps.c1.hypershift.local", "api.c1.hypershift.local"}},
		{"private-router", hcplinkv1beta1.LoadBalancerPublishing, []string{"*.apps.c1.hypershift.local"}},
		{"kube-apiserver-private", hcplinkv1beta1.LoadBalancerPublishing, []string{"api.c1.hypershift.local"}},
		{"other", hcplinkv1beta1.RoutePublishing, nil},
	}
	for _, tt := range tests {
		if got := EndpointRecordNames(tt.cr, hcp(tt.api)); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s/%s: %v, want %v", tt.cr, tt.api, got, tt.want)
		}
	}
}
