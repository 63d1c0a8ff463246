package hostedcluster

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/operator/platform"
)

const endpointType = hcplinkv1beta1.AWSEndpointAvailableCondition

func cond(t string, status metav1.ConditionStatus, reason, message string) metav1.Condition {
	return metav1.Condition{Type: t, Status: status, Reason: reason, Message: message}
}

func src(name string, conds ...metav1.Condition) conditionSource {
	return conditionSource{name: name, conditions: conds}
}

func TestAggregateCondition(t *testing.T) {
	ok := cond(endpointType, metav1.ConditionTrue, hcplinkv1beta1.AWSSuccessReason, "endpoint available")
	otherType := cond(hcplinkv1beta1.AWSEndpointServiceAvailableCondition, metav1.ConditionFalse, "X", "not this one")
	manyFalse := make([]conditionSource, 60)
	for i := range manyFalse {
		manyFalse[i] = src(strings.Repeat("n", 10)+string(rune('a'+i%26))+string(rune('a'+i/26)),
			cond(endpointType, metav1.ConditionFalse, hcplinkv1beta1.CloudErrorReason, strings.Repeat("m", 60)))
	}
	tests := []struct {
		name           string
		sources        []conditionSource
		listErr        error
		status         metav1.ConditionStatus
		reason         string
		message        string // exact, when set
		contains       []string
		maxMessageSize int
	}{
		{name: "no objects", status: metav1.ConditionUnknown, reason: hcplinkv1beta1.PrivateLinkStatusUnknownReason, contains: []string{"no AWSEndpointService exists yet"}},
		{name: "objects without the condition", sources: []conditionSource{src("private-router", otherType), src("kube-apiserver-private")},
			status: metav1.ConditionUnknown, reason: hcplinkv1beta1.PrivateLinkStatusUnknownReason, message: "no AWSEndpointService reports AWSEndpointAvailable yet"},
		{name: "all True", sources: []conditionSource{src("private-router", ok), src("kube-apiserver-private", ok, otherType)},
			status: metav1.ConditionTrue, reason: hcplinkv1beta1.AsExpectedReason, message: hcplinkv1beta1.AllIsWellMessage},
		{name: "one False among True keeps its reason", sources: []conditionSource{
			src("private-router", cond(endpointType, metav1.ConditionFalse, hcplinkv1beta1.EndpointPendingAcceptanceReason, "the endpoint waits for acceptance")),
			src("kube-apiserver-private", ok)},
			status: metav1.ConditionFalse, reason: hcplinkv1beta1.EndpointPendingAcceptanceReason, message: "private-router: the endpoint waits for acceptance"},
		{name: "two False with different reasons, joined in name order", sources: []conditionSource{
			src("private-router", cond(endpointType, metav1.ConditionFalse, hcplinkv1beta1.EndpointRejectedReason, "rejected")),
			src("kube-apiserver-private", cond(endpointType, metav1.ConditionFalse, hcplinkv1beta1.ThrottledReason, "throttled; retrying"))},
			status: metav1.ConditionFalse, reason: hcplinkv1beta1.PrivateLinkUnavailableReason,
			message: "kube-apiserver-private: throttled; retrying; private-router: rejected"},
		{name: "False without a message uses the reason", sources: []conditionSource{src("private-router", cond(endpointType, metav1.ConditionFalse, hcplinkv1beta1.CloudErrorReason, ""))},
			status: metav1.ConditionFalse, reason: hcplinkv1beta1.CloudErrorReason, message: "private-router: CloudError"},
		{name: "False wins over not reported", sources: []conditionSource{src("a", cond(endpointType, metav1.ConditionFalse, "R", "broken")), src("b")},
			status: metav1.ConditionFalse, reason: "R", message: "a: broken"},
		{name: "True and not reported yet is Unknown, not True", sources: []conditionSource{src("private-router", ok), src("kube-apiserver-private")},
			status: metav1.ConditionUnknown, reason: hcplinkv1beta1.PrivateLinkStatusUnknownReason, message: "kube-apiserver-private: not reported yet"},
		{name: "True and Unknown is Unknown", sources: []conditionSource{src("private-router", ok), src("kube-apiserver-private", cond(endpointType, metav1.ConditionUnknown, "InternalError", "describe failed"))},
			status: metav1.ConditionUnknown, reason: hcplinkv1beta1.PrivateLinkStatusUnknownReason, message: "kube-apiserver-private: describe failed"},
		{name: "list error makes it Unknown whatever the objects say", sources: []conditionSource{src("private-router", ok)}, listErr: errors.New("the server is on fire"),
			status: metav1.ConditionUnknown, reason: hcplinkv1beta1.InternalErrorReason, contains: []string{"listing the AWSEndpointService objects failed", "on fire"}},
		{name: "many False messages are bounded", sources: manyFalse, status: metav1.ConditionFalse, reason: hcplinkv1beta1.CloudErrorReason,
			contains: []string{"more"}, maxMessageSize: maxConditionMessage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := aggregateCondition(endpointType, "AWSEndpointService", tt.sources, tt.listErr, 3)
			if got.Type != endpointType || got.ObservedGeneration != 3 {
				t.Errorf("type/observedGeneration = %s/%d, want %s/3", got.Type, got.ObservedGeneration, endpointType)
			}
			if got.Status != tt.status || got.Reason != tt.reason {
				t.Errorf("status/reason = %s/%s, want %s/%s (message %q)", got.Status, got.Reason, tt.status, tt.reason, got.Message)
			}
			if tt.message != "" && got.Message != tt.message {
				t.Errorf("message = %q, want %q", got.Message, tt.message)
			}
			for _, s := range tt.contains {
				if !strings.Contains(got.Message, s) {
					t.Errorf("message %q does not contain %q", got.Message, s)
				}
			}
			if tt.maxMessageSize > 0 && len(got.Message) > tt.maxMessageSize {
				t.Errorf("message is %d bytes, more than %d", len(got.Message), tt.maxMessageSize)
			}
		})
	}
}

func TestAvailableCondition(t *testing.T) {
	trueC := func(t string) metav1.Condition { return cond(t, metav1.ConditionTrue, "AsExpected", "") }
	invalidCredentials := cond(hcplinkv1beta1.ValidCloudCredentialsCondition, metav1.ConditionFalse, hcplinkv1beta1.InvalidCredentialsReason,
		"could not assume role arn:aws:iam::222222222222:role/x")
	validCredentials := trueC(hcplinkv1beta1.ValidCloudCredentialsCondition)
	tests := []struct {
		name        string
		valid, hcp  bool
		privateLink []metav1.Condition
		credentials *metav1.Condition
		status      metav1.ConditionStatus
		reason      string
		contains    string
	}{
		{name: "invalid", valid: false, hcp: true, status: metav1.ConditionFalse, reason: hcplinkv1beta1.InvalidConfigurationReason},
		{name: "no HostedControlPlane", valid: true, hcp: false, status: metav1.ConditionFalse, reason: hcplinkv1beta1.WaitingForControlPlaneReason},
		{name: "public cluster with its control plane", valid: true, hcp: true, status: metav1.ConditionTrue, reason: hcplinkv1beta1.AsExpectedReason},
		{name: "private, all True", valid: true, hcp: true,
			privateLink: []metav1.Condition{trueC(hcplinkv1beta1.AWSEndpointServiceAvailableCondition), trueC(endpointType)},
			status:      metav1.ConditionTrue, reason: hcplinkv1beta1.AsExpectedReason},
		{name: "private, one False", valid: true, hcp: true,
			privateLink: []metav1.Condition{trueC(hcplinkv1beta1.AWSEndpointServiceAvailableCondition), cond(endpointType, metav1.ConditionFalse, "R", "private-router: rejected")},
			status:      metav1.ConditionFalse, reason: hcplinkv1beta1.PrivateLinkUnavailableReason, contains: "AWSEndpointAvailable: private-router: rejected"},
		{name: "private, one Unknown", valid: true, hcp: true,
			privateLink: []metav1.Condition{trueC(hcplinkv1beta1.AWSEndpointServiceAvailableCondition), cond(endpointType, metav1.ConditionUnknown, "StatusUnknown", "")},
			status:      metav1.ConditionFalse, reason: hcplinkv1beta1.PrivateLinkStatusUnknownReason, contains: "AWSEndpointAvailable"},
		// Item 11: the endpoint's AccessDenied is a symptom; the control
		// plane's refused credentials are the cause, named first.
		{name: "private, endpoint denied while the control plane's credentials are invalid", valid: true, hcp: true,
			privateLink: []metav1.Condition{trueC(hcplinkv1beta1.AWSEndpointServiceAvailableCondition), cond(endpointType, metav1.ConditionFalse, "AccessDenied", "private-router: DescribeSecurityGroups was denied")},
			credentials: &invalidCredentials,
			status:      metav1.ConditionFalse, reason: hcplinkv1beta1.InvalidCredentialsReason, contains: "cannot use its cloud credentials: could not assume role"},
		{name: "private, not reported yet while the credentials are invalid", valid: true, hcp: true,
			privateLink: []metav1.Condition{cond(endpointType, metav1.ConditionUnknown, "StatusUnknown", "")}, credentials: &invalidCredentials,
			status: metav1.ConditionFalse, reason: hcplinkv1beta1.InvalidCredentialsReason, contains: "could not assume role"},
		{name: "private, all True: revoked credentials do not break a working path", valid: true, hcp: true,
			privateLink: []metav1.Condition{trueC(hcplinkv1beta1.AWSEndpointServiceAvailableCondition), trueC(endpointType)}, credentials: &invalidCredentials,
			status: metav1.ConditionTrue, reason: hcplinkv1beta1.AsExpectedReason},
		{name: "private, one False, valid credentials: the endpoint's cause", valid: true, hcp: true,
			privateLink: []metav1.Condition{cond(endpointType, metav1.ConditionFalse, "R", "private-router: rejected")}, credentials: &validCredentials,
			status: metav1.ConditionFalse, reason: hcplinkv1beta1.PrivateLinkUnavailableReason, contains: "rejected"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := availableCondition(availability{generation: 5, valid: tt.valid, hcpExists: tt.hcp, privateLink: tt.privateLink, credentials: tt.credentials})
			if got.Type != hcplinkv1beta1.AvailableCondition || got.ObservedGeneration != 5 {
				t.Errorf("type/observedGeneration = %s/%d", got.Type, got.ObservedGeneration)
			}
			if got.Status != tt.status || got.Reason != tt.reason {
				t.Errorf("status/reason = %s/%s, want %s/%s", got.Status, got.Reason, tt.status, tt.reason)
			}
			if !strings.Contains(got.Message, tt.contains) || got.Message == "" {
				t.Errorf("message %q does not contain %q", got.Message, tt.contains)
			}
		})
	}
}

func TestStatusPatch(t *testing.T) {
	past := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	now := metav1.NewTime(time.Date(2026, 2, 2, 0, 0, 0, 0, time.UTC))
	withTime := func(c metav1.Condition, gen int64) metav1.Condition {
		c.LastTransitionTime, c.ObservedGeneration = past, gen
		return c
	}
	valid := cond(hcplinkv1beta1.ValidConfigurationCondition, metav1.ConditionTrue, "AsExpected", "All is well")
	foreign := cond("SomeoneElse", metav1.ConditionTrue, "Theirs", "not ours")
	endpointUnknown := cond(endpointType, metav1.ConditionUnknown, "StatusUnknown", "waiting")
	type op struct{ Op, Path, Value string }
	tests := []struct {
		name    string
		status  hcplinkv1beta1.HostedClusterStatus
		rv      string
		change  conditionChange
		cpNS    string
		placed  string
		want    []op
		changed map[string]metav1.Time // lastTransitionTime expected per type written
	}{
		{name: "nothing changed", status: hcplinkv1beta1.HostedClusterStatus{ControlPlaneNamespace: "ns-demo", Conditions: []metav1.Condition{withTime(valid, 2)}},
			change: conditionChange{set: []metav1.Condition{withGen(valid, 2)}, remove: []string{hcplinkv1beta1.DeletingCondition}}, cpNS: "ns-demo", want: nil},
		{name: "no status yet: written whole, guarded by resourceVersion", rv: "42",
			change: conditionChange{set: []metav1.Condition{withGen(valid, 1)}}, cpNS: "ns-demo",
			want:    []op{{"test", "/metadata/resourceVersion", `"42"`}, {"add", "/status", `{"conditions":[VALID],"controlPlaneNamespace":"ns-demo"}`}},
			changed: map[string]metav1.Time{hcplinkv1beta1.ValidConfigurationCondition: now}},
		{name: "conditions list missing, namespace there", rv: "7", status: hcplinkv1beta1.HostedClusterStatus{ControlPlaneNamespace: "ns-demo"},
			change: conditionChange{set: []metav1.Condition{withGen(valid, 1)}}, cpNS: "ns-demo",
			want: []op{{"test", "/metadata/resourceVersion", `"7"`}, {"add", "/status/conditions", `[VALID]`}}},
		{name: "new type appended, foreign untouched", status: hcplinkv1beta1.HostedClusterStatus{ControlPlaneNamespace: "ns-demo", Conditions: []metav1.Condition{withTime(foreign, 1)}},
			change: conditionChange{set: []metav1.Condition{withGen(valid, 1)}}, cpNS: "ns-demo",
			want: []op{{"add", "/status/conditions/-", `VALID`}}},
		{name: "message change keeps the transition time; guarded by type", status: hcplinkv1beta1.HostedClusterStatus{ControlPlaneNamespace: "ns-demo",
			Conditions: []metav1.Condition{withTime(foreign, 1), withTime(endpointUnknown, 1)}},
			change:  conditionChange{set: []metav1.Condition{withGen(cond(endpointType, metav1.ConditionUnknown, "StatusUnknown", "still waiting"), 1)}},
			want:    []op{{"test", "/status/conditions/1/type", `"AWSEndpointAvailable"`}, {"replace", "/status/conditions/1", `ENDPOINT`}},
			changed: map[string]metav1.Time{endpointType: past}},
		{name: "status change moves the transition time", status: hcplinkv1beta1.HostedClusterStatus{ControlPlaneNamespace: "ns-demo",
			Conditions: []metav1.Condition{withTime(endpointUnknown, 1)}},
			change:  conditionChange{set: []metav1.Condition{withGen(cond(endpointType, metav1.ConditionTrue, "AsExpected", "All is well"), 1)}},
			want:    []op{{"test", "/status/conditions/0/type", `"AWSEndpointAvailable"`}, {"replace", "/status/conditions/0", `ENDPOINT`}},
			changed: map[string]metav1.Time{endpointType: now}},
		{name: "generation change alone rewrites", status: hcplinkv1beta1.HostedClusterStatus{ControlPlaneNamespace: "ns-demo", Conditions: []metav1.Condition{withTime(valid, 1)}},
			change: conditionChange{set: []metav1.Condition{withGen(valid, 2)}},
			want:   []op{{"test", "/status/conditions/0/type", `"ValidConfiguration"`}, {"replace", "/status/conditions/0", `VALID`}}},
		{name: "removals from the end first, after replacements", status: hcplinkv1beta1.HostedClusterStatus{ControlPlaneNamespace: "ns-demo", Conditions: []metav1.Condition{
			withTime(cond(hcplinkv1beta1.AWSEndpointServiceAvailableCondition, "True", "A", "a"), 1), withTime(foreign, 1), withTime(valid, 1), withTime(endpointUnknown, 1)}},
			change: conditionChange{set: []metav1.Condition{withGen(valid, 2)}, remove: []string{hcplinkv1beta1.AWSEndpointServiceAvailableCondition, endpointType, hcplinkv1beta1.DeletingCondition}},
			want: []op{{"test", "/status/conditions/2/type", `"ValidConfiguration"`}, {"replace", "/status/conditions/2", `VALID`},
				{"test", "/status/conditions/3/type", `"AWSEndpointAvailable"`}, {"remove", "/status/conditions/3", ""},
				{"test", "/status/conditions/0/type", `"AWSEndpointServiceAvailable"`}, {"remove", "/status/conditions/0", ""}}},
		{name: "namespace set on its own", status: hcplinkv1beta1.HostedClusterStatus{Conditions: []metav1.Condition{withTime(valid, 1)}},
			change: conditionChange{set: []metav1.Condition{withGen(valid, 1)}}, cpNS: "ns-demo",
			want: []op{{"add", "/status/controlPlaneNamespace", `"ns-demo"`}}},
		{name: "placement recorded beside the namespace", status: hcplinkv1beta1.HostedClusterStatus{ControlPlaneNamespace: "ns-demo", Conditions: []metav1.Condition{withTime(valid, 1)}},
			change: conditionChange{set: []metav1.Condition{withGen(valid, 1)}}, cpNS: "ns-demo", placed: "lb-2",
			want: []op{{"add", "/status/azureLoadBalancerConfiguration", `"lb-2"`}}},
		{name: "placement already recorded: nothing", status: hcplinkv1beta1.HostedClusterStatus{ControlPlaneNamespace: "ns-demo", AzureLoadBalancerConfiguration: "lb-2",
			Conditions: []metav1.Condition{withTime(valid, 1)}},
			change: conditionChange{set: []metav1.Condition{withGen(valid, 1)}}, cpNS: "ns-demo", placed: "lb-2", want: nil},
		{name: "no status yet: the placement is in the whole status", rv: "3",
			change: conditionChange{}, placed: "kubernetes",
			want: []op{{"test", "/metadata/resourceVersion", `"3"`}, {"add", "/status", `{"azureLoadBalancerConfiguration":"kubernetes"}`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hc := &hcplinkv1beta1.HostedCluster{Status: tt.status}
			hc.ResourceVersion = tt.rv
			placed := placementWrite{field: "azureLoadBalancerConfiguration", value: tt.placed, recorded: tt.status.AzureLoadBalancerConfiguration}
			got := statusPatch(hc, tt.change, tt.cpNS, placed, now)
			if len(got) != len(tt.want) {
				t.Fatalf("got %d operations, want %d: %s", len(got), len(tt.want), mustJSON(got))
			}
			for i, w := range tt.want {
				g := got[i]
				if g.Op != w.Op || g.Path != w.Path {
					t.Errorf("op %d = %s %s, want %s %s", i, g.Op, g.Path, w.Op, w.Path)
				}
				value := mustJSON(g.Value)
				switch {
				case w.Value == "":
					if g.Value != nil {
						t.Errorf("op %d carries a value %s", i, value)
					}
				case strings.Contains(w.Value, "VALID") || strings.Contains(w.Value, "ENDPOINT"):
					// Condition values: check the type and the transition time.
					for typ, ltt := range tt.changed {
						if strings.Contains(value, `"type":"`+typ+`"`) && !strings.Contains(value, `"lastTransitionTime":"`+ltt.UTC().Format(time.RFC3339)+`"`) {
							t.Errorf("op %d: %s should have lastTransitionTime %s: %s", i, typ, ltt.UTC().Format(time.RFC3339), value)
						}
					}
					if strings.Contains(w.Value, "controlPlaneNamespace") && !strings.Contains(value, `"controlPlaneNamespace":"ns-demo"`) {
						t.Errorf("op %d lacks the namespace: %s", i, value)
					}
				default:
					if value != w.Value {
						t.Errorf("op %d value = %s, want %s", i, value, w.Value)
					}
				}
			}
		})
	}
}

func withGen(c metav1.Condition, gen int64) metav1.Condition {
	c.ObservedGeneration = gen
	return c
}

func mustJSON(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(data)
}

func TestRequeueFor(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	if got := requeueFor(now); got != privateLinkCleanupPoll {
		t.Errorf("no deadline: %s, want %s", got, privateLinkCleanupPoll)
	}
	if got := requeueFor(now, time.Time{}, now.Add(20*time.Second)); got != 20*time.Second {
		t.Errorf("deadline in 20s: %s, want 20s", got)
	}
	if got := requeueFor(now, now.Add(-time.Minute)); got != time.Second {
		t.Errorf("past deadline: %s, want 1s", got)
	}
}

func TestJoinBounded(t *testing.T) {
	tests := []struct {
		parts []string
		limit int
		want  string
	}{
		{parts: []string{"a", "b"}, limit: 100, want: "a; b"},
		{parts: []string{"aaaa", "bbbb", "cccc"}, limit: 20, want: "aaaa; bbbb; cccc"},
		{parts: []string{"aaaa", "bbbb", "cccc", "dddd"}, limit: 20, want: "aaaa; and 3 more"},
		{parts: []string{strings.Repeat("x", 30), "y"}, limit: 10, want: "xxxxxxx…"},
	}
	for _, tt := range tests {
		got := joinBounded(tt.parts, tt.limit)
		if got != tt.want {
			t.Errorf("joinBounded(%q, %d) = %q, want %q", tt.parts, tt.limit, got, tt.want)
		}
		if len(got) > tt.limit {
			t.Errorf("joinBounded(%q, %d) is %d bytes long", tt.parts, tt.limit, len(got))
		}
	}
}

// TestAvailableConditionNamesTheFirstThingMissing: every reason the
// controller gives Available comes from availableCondition, earliest cause
// first (deletion, configuration, an earlier namespace, placement, the
// control plane, the cloud settings, then the private path).
func TestAvailableConditionNamesTheFirstThingMissing(t *testing.T) {
	refused := &platform.PlacementRefused{Reason: "NoLoadBalancerCapacity", Message: "every configuration has 8 Private Link Services"}
	badSettings := cond(hcplinkv1beta1.AzureConfigurationValidCondition, metav1.ConditionFalse, "SubnetNotFound", "the subnet workers does not exist")
	allTrue := []metav1.Condition{cond(hcplinkv1beta1.AzurePLSCreatedCondition, metav1.ConditionTrue, hcplinkv1beta1.AsExpectedReason, "")}
	ready := availability{generation: 3, valid: true, hcpExists: true, privateLink: allTrue}
	with := func(change func(*availability)) availability { in := ready; change(&in); return in }
	tests := []struct {
		name     string
		in       availability
		status   metav1.ConditionStatus
		reason   string
		contains string
	}{
		{"ready", ready, metav1.ConditionTrue, hcplinkv1beta1.AsExpectedReason, hcplinkv1beta1.AllIsWellMessage},
		{"deleting comes before everything", with(func(in *availability) { in.deleting, in.valid = true, false }),
			metav1.ConditionFalse, hcplinkv1beta1.DeletingReason, "being deleted"},
		{"an earlier cluster's namespace", with(func(in *availability) { in.earlierNamespace, in.hcpExists = "clusters-demo", false }),
			metav1.ConditionFalse, hcplinkv1beta1.WaitingForNamespaceReason, "clusters-demo of an earlier cluster"},
		{"no room for the routers", with(func(in *availability) { in.placementRefused = refused }),
			metav1.ConditionFalse, "NoLoadBalancerCapacity", "every configuration has 8"},
		{"the control plane could not be made", with(func(in *availability) { in.controlPlaneErr = errors.New("creating Deployment: forbidden") }),
			metav1.ConditionFalse, hcplinkv1beta1.WaitingForControlPlaneReason, "failed and will be retried: creating Deployment: forbidden"},
		{"cloud settings refuted outrank a working private path", with(func(in *availability) { in.settings = &badSettings }),
			metav1.ConditionFalse, hcplinkv1beta1.InvalidConfigurationReason, "the cloud settings are not valid: the subnet workers does not exist"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := availableCondition(tt.in)
			if got.Type != hcplinkv1beta1.AvailableCondition || got.ObservedGeneration != tt.in.generation {
				t.Errorf("type/observedGeneration = %s/%d", got.Type, got.ObservedGeneration)
			}
			if got.Status != tt.status || got.Reason != tt.reason || !strings.Contains(got.Message, tt.contains) {
				t.Errorf("Available = %s/%s %q, want %s/%s containing %q", got.Status, got.Reason, got.Message, tt.status, tt.reason, tt.contains)
			}
		})
	}
}
