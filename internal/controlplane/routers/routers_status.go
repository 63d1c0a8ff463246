package routers

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
)

// noRoutersMessage is the message of a True condition on a cluster that
// needs no router Service (an Azure cluster without private configuration).
const noRoutersMessage = "The cluster needs no router Services"

// heldMessage is the message of a condition whose missing Services wait
// for the cluster's cloud settings to be validated (Reconciler.MayCreate).
const heldMessage = "The router Services are created once the cluster's cloud settings are found valid (see the AzureConfigurationValid condition): nothing is created for invalid settings"

// routersReadyCondition says whether the desired router Services are in
// place (actual holds the Services found, by name).
func routersReadyCondition(desired []*corev1.Service, actual map[string]*corev1.Service) metav1.Condition {
	var missing, noAddress []string
	for _, want := range desired {
		have := actual[want.Name]
		switch {
		case have == nil || !have.DeletionTimestamp.IsZero():
			missing = append(missing, want.Name)
		case !hasLoadBalancerAddress(have):
			noAddress = append(noAddress, want.Name)
		}
	}
	cond := metav1.Condition{Type: hcplinkv1beta1.RoutersReadyCondition, Status: metav1.ConditionTrue, Reason: hcplinkv1beta1.AsExpectedReason, Message: hcplinkv1beta1.AllIsWellMessage}
	switch {
	case len(missing) > 0:
		cond.Status, cond.Reason = metav1.ConditionFalse, hcplinkv1beta1.WaitingForServiceReason
		cond.Message = fmt.Sprintf("Waiting for %s %s to be created (an earlier one of the same name may still be deleting)", servicesWord(missing), strings.Join(missing, ", "))
		if len(noAddress) > 0 {
			cond.Message += fmt.Sprintf("; waiting for the cloud to give %s %s a load balancer", servicesWord(noAddress), strings.Join(noAddress, ", "))
		}
	case len(noAddress) > 0:
		cond.Status, cond.Reason = metav1.ConditionFalse, hcplinkv1beta1.WaitingForLoadBalancerReason
		cond.Message = fmt.Sprintf("Waiting for the cloud to give %s %s a load balancer", servicesWord(noAddress), strings.Join(noAddress, ", "))
	case len(desired) == 0:
		cond.Message = noRoutersMessage
	}
	return cond
}

func servicesWord(names []string) string {
	if len(names) == 1 {
		return "Service"
	}
	return "Services"
}

func hasLoadBalancerAddress(svc *corev1.Service) bool {
	for _, ing := range svc.Status.LoadBalancer.Ingress {
		if ing.Hostname != "" || ing.IP != "" {
			return true
		}
	}
	return false
}
