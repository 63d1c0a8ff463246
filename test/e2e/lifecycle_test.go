package e2e

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	appsv1 "k8s.io/api/apps/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/test/e2eutil"
)

// TestPrivateClusterLifecycle walks a Private AWS cluster with two NodePools
// through creation, PublicAndPrivate and back, and deletion, checking the
// Kubernetes objects and the load balancers in the cloud at every step.
func TestPrivateClusterLifecycle(t *testing.T) {
	ctx := context.Background()
	ns := suite.CreateNamespace(t, "lifecycle")
	zones := env.Customer.Zones[:2]
	hc := createAWSCluster(t, clusterSpec{namespace: ns, name: "alpha", access: hcplinkv1beta1.AWSEndpointAccessPrivate, nodePoolZones: zones})
	hcpNS := hcplinkv1beta1.HostedControlPlaneNamespace(ns, hc.Name)

	suite.Eventually(t, e2eutil.ShortWait, "the control-plane namespace and HostedControlPlane", func(ctx context.Context) error {
		var namespace corev1.Namespace
		if err := env.Client.Get(ctx, types.NamespacedName{Name: hcpNS}, &namespace); err != nil {
			return err
		}
		var hcp hcplinkv1beta1.HostedControlPlane
		if err := env.Client.Get(ctx, types.NamespacedName{Namespace: hcpNS, Name: hc.Name}, &hcp); err != nil {
			return err
		}
		var subnets []string
		for _, np := range hcp.Spec.NodePools {
			subnets = append(subnets, np.SubnetID)
		}
		for _, zone := range zones {
			if !slices.Contains(subnets, env.Customer.SubnetByAZ[zone]) {
				return fmt.Errorf("HostedControlPlane lists NodePool subnets %v, missing %s", subnets, env.Customer.SubnetByAZ[zone])
			}
		}
		return nil
	})

	t.Run("the control-plane operator has its RBAC and nothing more", func(t *testing.T) {
		// The operator creates these after the namespace, in one or more
		// passes: wait for them, then judge the permissions they grant.
		suite.Eventually(t, e2eutil.ShortWait, "the control-plane operator's ServiceAccount, Role, RoleBinding and Deployment", func(ctx context.Context) error {
			for _, obj := range []client.Object{&corev1.ServiceAccount{}, &rbacv1.Role{}, &rbacv1.RoleBinding{}, &appsv1.Deployment{}} {
				if err := env.Client.Get(ctx, types.NamespacedName{Namespace: hcpNS, Name: "control-plane-operator"}, obj); err != nil {
					return fmt.Errorf("%T control-plane-operator: %w", obj, err)
				}
			}
			return nil
		})
		user := "system:serviceaccount:" + hcpNS + ":control-plane-operator"
		suite.Eventually(t, e2eutil.ShortWait, "the control-plane operator's permissions to be exactly its own", func(ctx context.Context) error {
			for _, tc := range []struct {
				attrs authorizationv1.ResourceAttributes
				want  bool
			}{
				{authorizationv1.ResourceAttributes{Namespace: hcpNS, Verb: "update", Group: "hcplink.io", Resource: "awsendpointservices", Subresource: "status"}, true},
				{authorizationv1.ResourceAttributes{Namespace: hcpNS, Verb: "create", Resource: "services"}, true},
				{authorizationv1.ResourceAttributes{Namespace: ns, Verb: "get", Resource: "secrets"}, false},
				{authorizationv1.ResourceAttributes{Namespace: "default", Verb: "list", Resource: "services"}, false},
				{authorizationv1.ResourceAttributes{Verb: "list", Resource: "namespaces"}, false},
				{authorizationv1.ResourceAttributes{Namespace: ns, Verb: "update", Group: "hcplink.io", Resource: "hostedclusters"}, false},
				// Another cloud's private-link objects: an AWS cluster's operator runs none of their controllers.
				{authorizationv1.ResourceAttributes{Namespace: hcpNS, Verb: "create", Group: "hcplink.io", Resource: "azureprivatelinkservices"}, false},
				{authorizationv1.ResourceAttributes{Namespace: hcpNS, Verb: "create", Group: "hcplink.io", Resource: "gcpprivateserviceconnects"}, false},
			} {
				sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
					User: user, Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + hcpNS, "system:authenticated"},
					ResourceAttributes: &tc.attrs,
				}}
				if err := env.Client.Create(ctx, sar); err != nil {
					return fmt.Errorf("SubjectAccessReview: %w", err)
				}
				if sar.Status.Allowed != tc.want {
					return fmt.Errorf("%s %s/%s in %q: allowed=%v, want %v (%s)", tc.attrs.Verb, tc.attrs.Resource, tc.attrs.Subresource, tc.attrs.Namespace, sar.Status.Allowed, tc.want, sar.Status.Reason)
				}
			}
			return nil
		})
	})

	suite.Eventually(t, e2eutil.ShortWait, "the in-process control-plane operator", func(ctx context.Context) error {
		if !slices.Contains(env.RunningControlPlaneOperators(), hcpNS) {
			return fmt.Errorf("running control-plane operators: %v", env.RunningControlPlaneOperators())
		}
		return nil
	})
	// It reaches the API server as its ServiceAccount, with that token
	// only: the Role above is what it runs under.
	if err := e2eutil.CheckControlPlaneOperatorIdentity(ctx, env, hcpNS, hcplinkv1beta1.AWSPlatform); err != nil {
		t.Error(err)
	}

	var privateNLB string
	suite.Eventually(t, e2eutil.LongWait, "private-router with an active internal NLB", func(ctx context.Context) error {
		lb, err := loadBalancerFor(ctx, hcpNS, "private-router")
		if err != nil {
			return err
		}
		if lb.Scheme != elbv2types.LoadBalancerSchemeEnumInternal {
			return fmt.Errorf("private-router NLB scheme is %s, want internal", lb.Scheme)
		}
		privateNLB = aws.ToString(lb.DNSName)
		return nil
	})
	if err := env.Client.Get(ctx, types.NamespacedName{Namespace: hcpNS, Name: "router"}, &corev1.Service{}); !apierrors.IsNotFound(err) {
		t.Fatalf("a Private cluster has a public router Service (err=%v)", err)
	}

	setAccess(t, hc, hcplinkv1beta1.AWSEndpointAccessPublicAndPrivate)
	var publicNLB string
	suite.Eventually(t, e2eutil.LongWait, "the public router with an internet-facing NLB", func(ctx context.Context) error {
		lb, err := loadBalancerFor(ctx, hcpNS, "router")
		if err != nil {
			return err
		}
		if lb.Scheme != elbv2types.LoadBalancerSchemeEnumInternetFacing {
			return fmt.Errorf("router NLB scheme is %s, want internet-facing", lb.Scheme)
		}
		publicNLB = aws.ToString(lb.DNSName)
		return nil
	})

	setAccess(t, hc, hcplinkv1beta1.AWSEndpointAccessPrivate)
	suite.Eventually(t, e2eutil.LongWait, "the public router and its NLB to go", func(ctx context.Context) error {
		if err := env.Client.Get(ctx, types.NamespacedName{Namespace: hcpNS, Name: "router"}, &corev1.Service{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("router Service still exists (err=%v)", err)
		}
		return loadBalancerGone(ctx, publicNLB)
	})
	if _, err := loadBalancerFor(ctx, hcpNS, "private-router"); err != nil {
		t.Fatalf("switching back to Private disturbed the private router: %v", err)
	}

	if err := env.Client.Delete(ctx, hc); err != nil {
		t.Fatalf("deleting the HostedCluster: %v", err)
	}
	suite.Eventually(t, e2eutil.LongWait, "the HostedCluster, its namespace and its NLBs to go", func(ctx context.Context) error {
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(hc), &hcplinkv1beta1.HostedCluster{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("HostedCluster still exists (err=%v)", err)
		}
		if err := env.Client.Get(ctx, types.NamespacedName{Name: hcpNS}, &corev1.Namespace{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("namespace %s still exists (err=%v)", hcpNS, err)
		}
		if err := loadBalancerGone(ctx, privateNLB); err != nil {
			return err
		}
		left, err := loadBalancersOfNamespace(ctx, hcpNS)
		if err != nil {
			return err
		}
		if len(left) > 0 {
			return fmt.Errorf("NLBs of %s remain: %v", hcpNS, left)
		}
		if slices.Contains(env.RunningControlPlaneOperators(), hcpNS) {
			return fmt.Errorf("the control-plane operator of %s still runs", hcpNS)
		}
		return nil
	})
}

func setAccess(t *testing.T, hc *hcplinkv1beta1.HostedCluster, access hcplinkv1beta1.AWSEndpointAccessType) {
	t.Helper()
	ctx := context.Background()
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(hc), hc); err != nil {
		t.Fatal(err)
	}
	patch := client.MergeFrom(hc.DeepCopy())
	hc.Spec.Platform.AWS.EndpointAccess = access
	if err := env.Client.Patch(ctx, hc, patch); err != nil {
		t.Fatalf("setting endpointAccess to %s: %v", access, err)
	}
}
