package azure_test

import (
	"encoding/json"
	"go/types"
	"regexp"
	"slices"
	"strings"
	"testing"

	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/sdkcalls"
)

const (
	module  = sdkcalls.Module
	pkgPath = module + "/internal/cloud/azure"
)

// providerComponents: which operator's identity each provider runs with.
var providerComponents = map[string]azurecloud.Component{
	"PrivateLinkServices": azurecloud.ManagementOperator,
	"PrivateEndpoints":    azurecloud.ControlPlaneOperator,
	"PrivateDNS":          azurecloud.ControlPlaneOperator,
	"GuestNetwork":        azurecloud.ControlPlaneOperator,
}

// componentPackages are the packages whose code runs with each
// component's identity.
var componentPackages = map[azurecloud.Component]string{
	azurecloud.ControlPlaneOperator: module + "/internal/controlplane/...",
	azurecloud.ManagementOperator:   module + "/internal/operator/...",
}

// TestPermissionsAreExactlyWhatTheProvidersCall follows every method of
// each provider (through every function of this package it uses) to the
// SDK interface methods it calls, maps them to actions with MethodActions,
// and compares with the table of the provider's component: a new call
// without its permission fails here, and so does a permission no provider
// needs.
func TestPermissionsAreExactlyWhatTheProvidersCall(t *testing.T) {
	pkgs := sdkcalls.Load(t, "../../..", pkgPath)
	a := sdkcalls.NewGraph(pkgs, sdkcalls.AzureMethod, pkgPath)
	got := map[azurecloud.Component]map[string]bool{}
	for provider, component := range providerComponents {
		if got[component] == nil {
			got[component] = map[string]bool{}
		}
		methods := a.MethodsOf(provider)
		if len(methods) == 0 {
			t.Fatalf("provider %s has no methods", provider)
		}
		for _, m := range methods {
			for _, method := range a.FromFunc(m) {
				actions, ok := azurecloud.MethodActions[method]
				if !ok {
					t.Errorf("%s calls %s, which MethodActions does not map", provider, method)
				}
				for _, action := range actions {
					got[component][action] = true
				}
			}
		}
	}
	for component, actions := range got {
		compareActions(t, component, keys(actions), azurecloud.Actions(component), true)
	}
}

// TestOperatorsCallOnlyWhatTheTableGrants follows each operator's packages
// (through internal/cloud/azure) to the SDK methods they call, directly on
// an SDK client or through a provider: each must be granted. (The
// converse — every grant used — is checked on the providers above.)
func TestOperatorsCallOnlyWhatTheTableGrants(t *testing.T) {
	var patterns []string
	for _, p := range componentPackages {
		patterns = append(patterns, p)
	}
	pkgs := sdkcalls.Load(t, "../../..", append(patterns, pkgPath)...)
	a := sdkcalls.NewGraph(pkgs, sdkcalls.AzureMethod, pkgPath)
	for component, root := range componentPackages {
		var got []string
		for _, m := range a.From(pkgs, root) {
			actions, ok := azurecloud.MethodActions[m]
			if !ok {
				t.Errorf("%s calls %s, which has no entry in MethodActions (add it to sdk.go and the table)", component, m)
			}
			got = append(got, actions...)
		}
		slices.Sort(got)
		compareActions(t, component, slices.Compact(got), azurecloud.Actions(component), false)
	}
}

func compareActions(t *testing.T, c azurecloud.Component, got, want []string, exact bool) {
	t.Helper()
	missing, unused := sdkcalls.Diff(got, want)
	for _, action := range missing {
		t.Errorf("%s calls what needs %s, which the permissions table does not grant it", c, action)
	}
	if !exact {
		return
	}
	for _, action := range unused {
		t.Errorf("the permissions table grants %s %s, which its providers never need", c, action)
	}
}

// TestEverySDKMethodIsMapped: each method of each interface of sdk.go has
// its actions, and MethodActions names no method that does not exist.
func TestEverySDKMethodIsMapped(t *testing.T) {
	pkgs := sdkcalls.Load(t, "../../..", pkgPath)
	scope := pkgs[0].Types.Scope()
	declared := map[string]bool{}
	for _, name := range scope.Names() {
		obj, ok := scope.Lookup(name).(*types.TypeName)
		if !ok || !strings.HasSuffix(name, "API") {
			continue
		}
		iface, ok := obj.Type().Underlying().(*types.Interface)
		if !ok {
			continue
		}
		for i := 0; i < iface.NumMethods(); i++ {
			key := name + "." + iface.Method(i).Name()
			declared[key] = true
			if len(azurecloud.MethodActions[key]) == 0 {
				t.Errorf("%s has no actions in MethodActions", key)
			}
		}
	}
	for key := range azurecloud.MethodActions {
		if !declared[key] {
			t.Errorf("MethodActions maps %s, which no interface of sdk.go declares", key)
		}
	}
}

func TestPermissionsTableHasEachActionOnceWithAReason(t *testing.T) {
	seen := map[string]bool{}
	valid := regexp.MustCompile(`^Microsoft\.(Network|Resources)/[A-Za-z]+(/[A-Za-z]+)*/(read|write|delete|action)$`)
	for _, p := range azurecloud.Permissions {
		key := string(p.Component) + " " + p.Action
		if seen[key] {
			t.Errorf("%s is listed twice", key)
		}
		seen[key] = true
		if strings.TrimSpace(p.Why) == "" {
			t.Errorf("%s says not why it is needed", key)
		}
		if !valid.MatchString(p.Action) {
			t.Errorf("%s is not an Azure RBAC action of Microsoft.Network or Microsoft.Resources", key)
		}
	}
}

func TestCustomRoleJSON(t *testing.T) {
	scope := "/subscriptions/x/resourceGroups/y"
	for _, c := range []azurecloud.Component{azurecloud.ControlPlaneOperator, azurecloud.ManagementOperator} {
		var role azurecloud.RoleDefinition
		if err := json.Unmarshal([]byte(azurecloud.CustomRoleJSON(c, scope)), &role); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(role.Actions, azurecloud.Actions(c)) || !slices.IsSorted(role.Actions) || len(role.Actions) == 0 ||
			!slices.Equal(role.AssignableScopes, []string{scope}) || role.NotActions == nil {
			t.Errorf("%s role = %+v", c, role)
		}
	}
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
