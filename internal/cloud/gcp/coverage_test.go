package gcp_test

import (
	"go/types"
	"sort"
	"strings"
	"testing"
	"unicode"

	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
	"github.com/hcplink/hcplink/internal/sdkcalls"
)

const pkgPath = sdkcalls.Module + "/internal/cloud/gcp"

// gcpServices are the generated clients' packages, by the service name
// cloudsim counts calls under.
var gcpServices = map[string]string{
	"google.golang.org/api/compute/v1": "compute.googleapis.com",
	"google.golang.org/api/dns/v1":     "dns.googleapis.com",
}

// gcpMethod names the REST method a generated call's Do or Pages sends, as
// Google's discovery documents and cloudsim's counters do:
// compute.ServiceAttachmentsInsertCall.Do → "compute.googleapis.com:serviceAttachments.insert".
func gcpMethod(fn *types.Func) string {
	if fn.Name() != "Do" && fn.Name() != "Pages" {
		return ""
	}
	recv := fn.Type().(*types.Signature).Recv()
	if recv == nil {
		return ""
	}
	t := recv.Type()
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	named, ok := t.(*types.Named)
	if !ok || named.Obj().Pkg() == nil {
		return ""
	}
	service, ok := gcpServices[named.Obj().Pkg().Path()]
	name, isCall := strings.CutSuffix(named.Obj().Name(), "Call")
	if !ok || !isCall {
		return ""
	}
	words := camelWords(name)
	if len(words) < 2 {
		return ""
	}
	verb := words[len(words)-1]
	resource := strings.Join(words[:len(words)-1], "")
	return service + ":" + lowerFirst(resource) + "." + lowerFirst(verb)
}

func camelWords(s string) []string {
	var words []string
	start := 0
	for i, r := range s {
		if i > 0 && unicode.IsUpper(r) {
			words = append(words, s[start:i])
			start = i
		}
	}
	return append(words, s[start:])
}

func lowerFirst(s string) string { return strings.ToLower(s[:1]) + s[1:] }

// providerComponents: which operator's identity each provider runs with.
var providerComponents = map[string][]gcpcloud.Component{
	"RouterRules":        {gcpcloud.ManagementOperator},
	"NATSubnets":         {gcpcloud.ManagementOperator},
	"ServiceAttachments": {gcpcloud.ManagementOperator},
	"Subnetworks":        {gcpcloud.ControlPlaneOperator},
	"Addresses":          {gcpcloud.ControlPlaneOperator},
	"Endpoints":          {gcpcloud.ControlPlaneOperator},
	"Zones":              {gcpcloud.ControlPlaneOperator},
	"Records":            {gcpcloud.ControlPlaneOperator},
	"Operations":         {gcpcloud.ManagementOperator, gcpcloud.ControlPlaneOperator},
}

// TestTheProofCoversEveryCallTheProvidersCanMake reads the providers'
// code for every Compute Engine and Cloud DNS method they can call, and
// checks that the lifecycle the custom roles are proven on (see
// TestCustomRolesAreExactlyWhatTheProvidersUse) called each one as the
// provider's operator: a new call outside the proof fails here, so the
// roles stay proven for everything the code does.
func TestTheProofCoversEveryCallTheProvidersCanMake(t *testing.T) {
	pkgs := sdkcalls.Load(t, "../../..", pkgPath)
	graph := sdkcalls.NewGraph(pkgs, gcpMethod, pkgPath)
	static := map[gcpcloud.Component]map[string]bool{}
	for provider, components := range providerComponents {
		methods := graph.MethodsOf(provider)
		if len(methods) == 0 {
			t.Fatalf("provider %s has no methods", provider)
		}
		for _, m := range methods {
			for _, call := range graph.FromFunc(m) {
				for _, c := range components {
					if static[c] == nil {
						static[c] = map[string]bool{}
					}
					static[c][call] = true
				}
			}
		}
	}

	w := newWorld(t)
	runLifecycle(w)
	calls := w.f.Server.GCP.PrincipalCalls()
	for component, member := range map[gcpcloud.Component]string{gcpcloud.ManagementOperator: w.mgmtSA, gcpcloud.ControlPlaneOperator: w.cpoSA} {
		var missing []string
		for call := range static[component] {
			if calls[member][call].Total == 0 {
				missing = append(missing, call)
			}
		}
		sort.Strings(missing)
		for _, call := range missing {
			t.Errorf("the %s's providers can call %s, which the proven lifecycle never calls", component, call)
		}
		if len(static[component]) == 0 {
			t.Errorf("no calls found for %s", component)
		}
	}
}
