package gcp

import (
	"fmt"
	"net/http"
	"strings"

	"google.golang.org/api/compute/v1"
)

// Forwarding rules (https://cloud.google.com/compute/docs/reference/rest/v1/forwardingRules),
// three kinds:
//   - an internal passthrough load balancer's rule (the producer's side):
//     loadBalancingScheme INTERNAL, an IP in a PRIVATE subnetwork, a backend
//     service (named, not modelled);
//   - an external passthrough load balancer's rule (a public Service's):
//     loadBalancingScheme EXTERNAL, an ephemeral external IP, a backend
//     service (named, not modelled), no network; no attachment may front it;
//   - a Private Service Connect endpoint (the consumer's side): target is a
//     service attachment, possibly in another project, IPAddress a reserved
//     internal address, no loadBalancingScheme; pscConnectionStatus follows
//     the producer's lists (compute_psc.go).
// A rule that a service attachment serves cannot be deleted.

func (c *Cloud) registerForwardingRules(mux *http.ServeMux) {
	const path = "/compute/v1/projects/{project}/regions/{region}/forwardingRules"
	c.handle(mux, "POST "+path, computeAPI("forwardingRules.insert", "compute.forwardingRules.create"), insertForwardingRule)
	c.handle(mux, "GET "+path, computeAPI("forwardingRules.list", "compute.forwardingRules.list"), listForwardingRules)
	c.handle(mux, "GET "+path+"/{name}", computeAPI("forwardingRules.get", "compute.forwardingRules.get"), getForwardingRule)
	c.handle(mux, "DELETE "+path+"/{name}", computeAPI("forwardingRules.delete", "compute.forwardingRules.delete"), deleteForwardingRule)
}

func (c *Cloud) forwardingRule(key string) *compute.ForwardingRule {
	if c.st.pending[key] {
		return nil
	}
	return c.st.forwardingRules[key]
}

func insertForwardingRule(x *call) (any, *Error) {
	if err := x.checkRegion(); err != nil {
		return nil, err
	}
	var fr compute.ForwardingRule
	if err := x.decode(&fr); err != nil {
		return nil, err
	}
	if err := x.checkName(fr.Name); err != nil {
		return nil, err
	}
	region := x.r.PathValue("region")
	key := x.regionalKey("forwardingRules", fr.Name)
	if x.c.st.forwardingRules[key] != nil {
		return nil, errAlreadyExists(key)
	}
	var addressKey string
	var err *Error
	id := x.c.newID()
	switch {
	case fr.Target != "":
		addressKey, err = x.preparePSCEndpoint(&fr, region)
	case fr.LoadBalancingScheme == "EXTERNAL":
		err = x.prepareExternalRule(&fr, region, id)
	default:
		addressKey, err = x.prepareInternalRule(&fr, region)
	}
	if err != nil {
		return nil, err
	}
	fr.Kind, fr.Id, fr.CreationTimestamp, fr.SelfLink = "compute#forwardingRule", id, timestamp(x.now), x.computeLink(key)
	fr.Region = x.computeLink("projects/" + x.project.ID + "/regions/" + region)
	fr.Fingerprint = x.c.fingerprint()
	if fr.Labels != nil {
		fr.LabelFingerprint = x.c.fingerprint()
	}
	fr.ForceSendFields, fr.NullFields = nil, nil
	x.c.st.forwardingRules[key] = &fr
	if addressKey != "" {
		x.c.st.ruleAddress[key] = addressKey
	}
	return x.startOperation(region, mutation{kind: "insert", target: key, id: fr.Id, apply: func() *Error {
		if fr.Target != "" {
			x.c.reconcileConnections(rel(fr.Target))
		}
		return nil
	}}), nil
}

// prepareInternalRule checks and completes a load balancer's rule; it
// returns the address resource the rule uses, if it names one.
func (x *call) prepareInternalRule(fr *compute.ForwardingRule, region string) (string, *Error) {
	if fr.LoadBalancingScheme != "INTERNAL" {
		return "", errInvalid("Invalid value for field 'resource.loadBalancingScheme': '%s'. cloudsim models INTERNAL forwarding rules and Private Service Connect endpoints.", fr.LoadBalancingScheme)
	}
	if fr.BackendService == "" {
		return "", errRequired("resource.backendService")
	}
	if fr.Subnetwork == "" {
		return "", errRequired("resource.subnetwork")
	}
	subnetKey := x.ref(fr.Subnetwork, region, "subnetworks")
	s := x.c.subnetwork(subnetKey)
	if s == nil || lastSegment(s.Region) != region {
		return "", errNotFound(subnetKey)
	}
	if err := x.require("compute.subnetworks.use", subnetKey); err != nil {
		return "", err
	}
	if fr.Network != "" && x.ref(fr.Network, "", "networks") != rel(s.Network) {
		return "", errInvalid("Invalid value for field 'resource.network': '%s'. The subnetwork '%s' is not in this network.", fr.Network, s.Name)
	}
	addressKey, ip, err := x.ruleAddress(fr.IPAddress, region, subnetKey)
	if err != nil {
		return "", err
	}
	if addressKey == "" {
		if ip, err = x.takeIP(s, ip, "resource.IPAddress"); err != nil {
			return "", err
		}
	}
	fr.IPAddress, fr.Subnetwork, fr.Network = ip, s.SelfLink, s.Network
	fr.BackendService = x.computeLink(x.ref(fr.BackendService, region, "backendServices"))
	if fr.IPProtocol == "" {
		fr.IPProtocol = "TCP"
	}
	fr.NetworkTier, fr.IpVersion = "PREMIUM", "IPV4"
	return addressKey, nil
}

// prepareExternalRule checks and completes an external passthrough load
// balancer's rule: a backend service and, unless it names one, an
// ephemeral external address, unique per rule (from the rule's ID, in
// 34.0.0.0/8, a range Google's external addresses come from).
func (x *call) prepareExternalRule(fr *compute.ForwardingRule, region string, id uint64) *Error {
	if fr.BackendService == "" {
		return errRequired("resource.backendService")
	}
	if fr.Subnetwork != "" || fr.Network != "" {
		return errInvalid("Invalid value for field 'resource.subnetwork': '%s'. An EXTERNAL forwarding rule is in no network.", fr.Subnetwork+fr.Network)
	}
	if fr.IPAddress == "" {
		fr.IPAddress = fmt.Sprintf("34.%d.%d.%d", id>>16&0xff, id>>8&0xff, id&0xff)
	}
	fr.BackendService = x.computeLink(x.ref(fr.BackendService, region, "backendServices"))
	if fr.IPProtocol == "" {
		fr.IPProtocol = "TCP"
	}
	fr.NetworkTier, fr.IpVersion = "PREMIUM", "IPV4"
	return nil
}

// ruleAddress resolves a rule's IPAddress field: an address resource (by
// link or name, or by its IP) or a bare IP. It returns the address
// resource's key when there is one, and the IP.
func (x *call) ruleAddress(value, region, subnetKey string) (string, string, *Error) {
	if value == "" {
		return "", "", nil
	}
	if strings.Contains(value, "/") || !strings.ContainsAny(value, ".:") {
		key := x.ref(value, region, "addresses")
		a := x.c.address(key)
		if a == nil {
			return "", "", errNotFound(key)
		}
		if err := x.require("compute.addresses.use", key); err != nil {
			return "", "", err
		}
		if subnetKey != "" && rel(a.Subnetwork) != subnetKey {
			return "", "", errInvalid("Invalid value for field 'resource.IPAddress': '%s'. The address is not in the rule's subnetwork.", value)
		}
		if user := x.c.addressUser(key); user != nil {
			return "", "", errInUse(key, rel(user.SelfLink))
		}
		return key, a.Address, nil
	}
	for _, k := range sortedKeys(x.c.st.addresses) {
		a := x.c.st.addresses[k]
		if a.Address == value && lastSegment(a.Region) == region && projectOf(k) == x.project.ID {
			return x.ruleAddress(k, region, subnetKey)
		}
	}
	return "", value, nil
}

func (c *Cloud) renderForwardingRule(fr *compute.ForwardingRule) *compute.ForwardingRule {
	out := *fr
	return &out
}

func getForwardingRule(x *call) (any, *Error) {
	key := x.regionalKey("forwardingRules", x.r.PathValue("name"))
	fr := x.c.forwardingRule(key)
	if fr == nil {
		return nil, errNotFound(key)
	}
	return x.c.renderForwardingRule(fr), nil
}

func listForwardingRules(x *call) (any, *Error) {
	prefix := x.regionalKey("forwardingRules", "")
	var items []any
	for _, k := range sortedKeys(x.c.st.forwardingRules) {
		if fr := x.c.forwardingRule(k); fr != nil && strings.HasPrefix(k, prefix) {
			items = append(items, x.c.renderForwardingRule(fr))
		}
	}
	return x.page("compute#forwardingRuleList", items)
}

func deleteForwardingRule(x *call) (any, *Error) {
	key := x.regionalKey("forwardingRules", x.r.PathValue("name"))
	fr := x.c.forwardingRule(key)
	if fr == nil {
		return nil, errNotFound(key)
	}
	for _, k := range sortedKeys(x.c.st.attachments) {
		if rel(x.c.st.attachments[k].TargetService) == key {
			return nil, errInUse(key, k)
		}
	}
	if fr.Target != "" {
		if err := x.require(permissionPSCDelete, key); err != nil {
			return nil, err
		}
	}
	return x.startOperation(x.r.PathValue("region"), mutation{kind: "delete", target: key, id: fr.Id, apply: func() *Error {
		delete(x.c.st.forwardingRules, key)
		delete(x.c.st.ruleAddress, key)
		if fr.Target != "" {
			x.c.reconcileConnections(rel(fr.Target))
		}
		return nil
	}}), nil
}
