package lbcontroller

import (
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

var namePattern = regexp.MustCompile(`^k8s-[a-z0-9]{0,8}-[a-z0-9]{0,8}-[0-9a-f]{10}$`)

func TestLoadBalancerName(t *testing.T) {
	tests := []struct {
		namespace, name string
		uid             types.UID
		wantPrefix      string
	}{
		{"clusters-demo", "private-router", "uid-1", "k8s-clusters-privater-"},
		{"ns", "router", "uid-1", "k8s-ns-router-"},
		{"a-very-long-namespace-name-that-goes-on", "kube-apiserver-private", "uid-1", "k8s-averylon-kubeapis-"},
		{"x", strings.Repeat("n", 63), "uid-1", "k8s-x-nnnnnnnn-"},
		{"--", "--", "uid-1", "k8s---"},
	}
	seen := map[string]string{}
	for _, tt := range tests {
		got := LoadBalancerName(tt.namespace, tt.name, tt.uid)
		if len(got) > 32 {
			t.Errorf("LoadBalancerName(%s, %s) = %q is %d characters, AWS allows 32", tt.namespace, tt.name, got, len(got))
		}
		if !strings.HasPrefix(got, tt.wantPrefix) {
			t.Errorf("LoadBalancerName(%s, %s) = %q, want prefix %q", tt.namespace, tt.name, got, tt.wantPrefix)
		}
		if tt.namespace != "--" && !namePattern.MatchString(got) {
			t.Errorf("LoadBalancerName(%s, %s) = %q does not match %s", tt.namespace, tt.name, got, namePattern)
		}
		if again := LoadBalancerName(tt.namespace, tt.name, tt.uid); again != got {
			t.Errorf("not stable: %q then %q", got, again)
		}
		if other, dup := seen[got]; dup {
			t.Errorf("%q names both %s and %s/%s", got, other, tt.namespace, tt.name)
		}
		seen[got] = tt.namespace + "/" + tt.name
	}

	// Services that truncate alike, or the same Service created again, get
	// different names.
	base := LoadBalancerName("clusters-demo1", "private-router", "uid-1")
	for _, other := range []string{
		LoadBalancerName("clusters-demo2", "private-router", "uid-1"),
		LoadBalancerName("clusters-demo1", "private-router-2", "uid-1"),
		LoadBalancerName("clusters-demo1", "private-router", "uid-2"),
	} {
		if other == base {
			t.Errorf("%q names two Services", base)
		}
	}
}

// TestNameSurvivesTheHostname: the observer derives the NLB name from the
// hostname this controller writes (first DNS label minus its last
// "-segment"); the two must agree.
func TestNameSurvivesTheHostname(t *testing.T) {
	name := LoadBalancerName("clusters-demo", "private-router", "uid-1")
	hostname := name + "-0123456789abcdef.elb.us-east-1.amazonaws.com"
	label, _, _ := strings.Cut(hostname, ".")
	derived := label[:strings.LastIndex(label, "-")]
	if derived != name {
		t.Errorf("derived %q from %q, want %q", derived, hostname, name)
	}
}

func TestSchemeAndCrossZone(t *testing.T) {
	tests := []struct {
		name        string
		annotations map[string]string
		scheme      string
		crossZone   bool
		azure       bool
	}{
		{"no annotations", nil, SchemeInternetFacing, false, false},
		{"internal true", map[string]string{awsInternalAnnotation: "true"}, SchemeInternal, false, false},
		{"internal 0.0.0.0/0 (legacy value)", map[string]string{awsInternalAnnotation: "0.0.0.0/0"}, SchemeInternal, false, false},
		{"internal false", map[string]string{awsInternalAnnotation: "false"}, SchemeInternetFacing, false, false},
		{"scheme internal", map[string]string{awsSchemeAnnotation: "internal"}, SchemeInternal, false, false},
		{"scheme internet-facing", map[string]string{awsSchemeAnnotation: "internet-facing"}, SchemeInternetFacing, false, false},
		{"in-tree cross-zone", map[string]string{awsCrossZoneAnnotation: "true"}, SchemeInternetFacing, true, false},
		{"LBC attributes", map[string]string{awsAttributesAnnotation: "deletion_protection.enabled=false, load_balancing.cross_zone.enabled=true"}, SchemeInternetFacing, true, false},
		{"LBC attributes false", map[string]string{awsAttributesAnnotation: "load_balancing.cross_zone.enabled=false"}, SchemeInternetFacing, false, false},
		{"hcplink private-router", map[string]string{
			"service.beta.kubernetes.io/aws-load-balancer-type": "nlb", awsInternalAnnotation: "true", awsSchemeAnnotation: "internal",
			awsCrossZoneAnnotation: "true", awsAttributesAnnotation: "load_balancing.cross_zone.enabled=true",
		}, SchemeInternal, true, false},
		{"Azure internal", map[string]string{"service.beta.kubernetes.io/azure-load-balancer-internal": "true"}, SchemeInternetFacing, false, true},
		{"Azure public", map[string]string{"service.beta.kubernetes.io/azure-load-balancer-internal": "false"}, SchemeInternetFacing, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Annotations: tt.annotations}}
			if got := schemeOf(svc); got != tt.scheme {
				t.Errorf("scheme %q, want %q", got, tt.scheme)
			}
			if got := wantsCrossZone(svc); got != tt.crossZone {
				t.Errorf("cross-zone %v, want %v", got, tt.crossZone)
			}
			if got := isAzure(svc); got != tt.azure {
				t.Errorf("azure %v, want %v", got, tt.azure)
			}
		})
	}
}

func TestWantsLoadBalancer(t *testing.T) {
	lb := corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer}
	classed := lb
	classed.LoadBalancerClass = ptr.To("service.k8s.aws/nlb")
	for _, tt := range []struct {
		spec corev1.ServiceSpec
		want bool
	}{
		{lb, true},
		{classed, false},
		{corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP}, false},
		{corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort}, false},
	} {
		if got := wantsLoadBalancer(&corev1.Service{Spec: tt.spec}); got != tt.want {
			t.Errorf("wantsLoadBalancer(%+v) = %v, want %v", tt.spec, got, tt.want)
		}
	}
}

func TestPollDelay(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *time.Time { t := now.Add(-d); return &t }
	for _, tt := range []struct {
		created *time.Time
		want    time.Duration
	}{
		{nil, minPoll},
		{at(0), minPoll},
		{at(400 * time.Millisecond), minPoll},
		{at(4 * time.Second), time.Second},
		{at(10 * time.Minute), maxPoll},
	} {
		if got := pollDelay(tt.created, now); got != tt.want {
			t.Errorf("pollDelay(%v) = %v, want %v", tt.created, got, tt.want)
		}
	}
}
