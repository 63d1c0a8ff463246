package routers

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
)

func TestRoutersReadyCondition(t *testing.T) {
	svc := func(name string, ingress ...corev1.LoadBalancerIngress) *corev1.Service {
		s := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name}}
		s.Status.LoadBalancer.Ingress = ingress
		return s
	}
	deleting := svc("router", corev1.LoadBalancerIngress{Hostname: "old.elb.amazonaws.com"})
	deleting.DeletionTimestamp = ptr.To(metav1.Now())
	hostname := corev1.LoadBalancerIngress{Hostname: "k8s-x.elb.us-east-1.amazonaws.com"}
	ip := corev1.LoadBalancerIngress{IP: "10.0.0.4"}

	tests := []struct {
		name        string
		desired     []string
		actual      []*corev1.Service
		wantStatus  metav1.ConditionStatus
		wantReason  string
		wantMessage string
	}{
		{
			name:       "nothing needed",
			wantStatus: metav1.ConditionTrue, wantReason: hcplinkv1beta1.AsExpectedReason,
			wantMessage: "The cluster needs no router Services",
		},
		{
			name:    "all have addresses (hostname or IP)",
			desired: []string{"private-router", "router"},
			actual:  []*corev1.Service{svc("private-router", hostname), svc("router", ip)},
			// extra Services found are not our business here
			wantStatus: metav1.ConditionTrue, wantReason: hcplinkv1beta1.AsExpectedReason, wantMessage: hcplinkv1beta1.AllIsWellMessage,
		},
		{
			name:        "one without an address",
			desired:     []string{"private-router", "router"},
			actual:      []*corev1.Service{svc("private-router", hostname), svc("router")},
			wantStatus:  metav1.ConditionFalse,
			wantReason:  hcplinkv1beta1.WaitingForLoadBalancerReason,
			wantMessage: "Waiting for the cloud to give Service router a load balancer",
		},
		{
			name:        "two without an address",
			desired:     []string{"private-router", "kube-apiserver-private"},
			actual:      []*corev1.Service{svc("private-router"), svc("kube-apiserver-private", corev1.LoadBalancerIngress{})},
			wantStatus:  metav1.ConditionFalse,
			wantReason:  hcplinkv1beta1.WaitingForLoadBalancerReason,
			wantMessage: "Waiting for the cloud to give Services private-router, kube-apiserver-private a load balancer",
		},
		{
			name:        "missing wins over no address",
			desired:     []string{"private-router", "router"},
			actual:      []*corev1.Service{svc("private-router")},
			wantStatus:  metav1.ConditionFalse,
			wantReason:  hcplinkv1beta1.WaitingForServiceReason,
			wantMessage: "Waiting for Service router to be created (an earlier one of the same name may still be deleting); waiting for the cloud to give Service private-router a load balancer",
		},
		{
			name:        "a deleting Service counts as missing even with an address",
			desired:     []string{"router"},
			actual:      []*corev1.Service{deleting},
			wantStatus:  metav1.ConditionFalse,
			wantReason:  hcplinkv1beta1.WaitingForServiceReason,
			wantMessage: "Waiting for Service router to be created (an earlier one of the same name may still be deleting)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var desired []*corev1.Service
			for _, n := range tt.desired {
				desired = append(desired, svc(n))
			}
			actual := map[string]*corev1.Service{}
			for _, s := range tt.actual {
				actual[s.Name] = s
			}
			got := routersReadyCondition(desired, actual)
			if got.Type != hcplinkv1beta1.RoutersReadyCondition || got.Status != tt.wantStatus || got.Reason != tt.wantReason || got.Message != tt.wantMessage {
				t.Errorf("got %s=%s %s %q\nwant %s=%s %s %q", got.Type, got.Status, got.Reason, got.Message,
					hcplinkv1beta1.RoutersReadyCondition, tt.wantStatus, tt.wantReason, tt.wantMessage)
			}
		})
	}
}
