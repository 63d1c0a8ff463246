package gcp

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"

	"google.golang.org/api/compute/v1"
)

// Service attachments (https://cloud.google.com/compute/docs/reference/rest/v1/serviceAttachments):
// a producer publishes an internal load balancer's forwarding rule
// (targetService) through one or more NAT subnetworks of purpose
// PRIVATE_SERVICE_CONNECT, which no other attachment may use
// (https://cloud.google.com/vpc/docs/about-vpc-hosted-services#psc-subnets).
// connectionPreference ACCEPT_AUTOMATIC accepts every consumer; ACCEPT_MANUAL
// accepts the projects or networks of consumerAcceptLists, each up to its
// connectionLimit, and rejects consumerRejectLists. patch needs the current
// fingerprint (412 conditionNotMet otherwise). connectedEndpoints is
// computed from the consumers' endpoints (compute_psc.go).

func (c *Cloud) registerServiceAttachments(mux *http.ServeMux) {
	const path = "/compute/v1/projects/{project}/regions/{region}/serviceAttachments"
	c.handle(mux, "POST "+path, computeAPI("serviceAttachments.insert", "compute.serviceAttachments.create"), insertServiceAttachment)
	c.handle(mux, "GET "+path, computeAPI("serviceAttachments.list", "compute.serviceAttachments.list"), listServiceAttachments)
	c.handle(mux, "GET "+path+"/{name}", computeAPI("serviceAttachments.get", "compute.serviceAttachments.get"), getServiceAttachment)
	c.handle(mux, "PATCH "+path+"/{name}", computeAPI("serviceAttachments.patch", "compute.serviceAttachments.update"), patchServiceAttachment)
	c.handle(mux, "DELETE "+path+"/{name}", computeAPI("serviceAttachments.delete", "compute.serviceAttachments.delete"), deleteServiceAttachment)
}

const (
	acceptAutomatic = "ACCEPT_AUTOMATIC"
	acceptManual    = "ACCEPT_MANUAL"
)

func (c *Cloud) attachment(key string) *compute.ServiceAttachment {
	if c.st.pending[key] {
		return nil
	}
	return c.st.attachments[key]
}

func insertServiceAttachment(x *call) (any, *Error) {
	if err := x.checkRegion(); err != nil {
		return nil, err
	}
	var sa compute.ServiceAttachment
	if err := x.decode(&sa); err != nil {
		return nil, err
	}
	if err := x.checkName(sa.Name); err != nil {
		return nil, err
	}
	region := x.r.PathValue("region")
	key := x.regionalKey("serviceAttachments", sa.Name)
	if x.c.st.attachments[key] != nil {
		return nil, errAlreadyExists(key)
	}
	if sa.TargetService == "" {
		sa.TargetService = sa.ProducerForwardingRule
	}
	if sa.TargetService == "" {
		return nil, errRequired("resource.targetService")
	}
	targetKey := x.ref(sa.TargetService, region, "forwardingRules")
	target := x.c.forwardingRule(targetKey)
	if target == nil || projectOf(targetKey) != x.project.ID || lastSegment(target.Region) != region {
		return nil, errNotFound(targetKey)
	}
	if target.LoadBalancingScheme != "INTERNAL" {
		return nil, errInvalid("Invalid value for field 'resource.targetService': '%s'. A service attachment serves an internal load balancer's forwarding rule.", sa.TargetService)
	}
	// The rule is a resource the attachment refers to, so its .use
	// permission is checked, as for the NAT subnetworks (producers' published
	// roles carry compute.forwardingRules.use beside serviceAttachments.create).
	if err := x.require("compute.forwardingRules.use", targetKey); err != nil {
		return nil, err
	}
	sa.TargetService, sa.ProducerForwardingRule = target.SelfLink, ""
	if err := x.checkAttachmentSettings(key, &sa, region); err != nil {
		return nil, err
	}
	sa.Kind, sa.Id, sa.CreationTimestamp, sa.SelfLink = "compute#serviceAttachment", x.c.newID(), timestamp(x.now), x.computeLink(key)
	sa.Region = x.computeLink("projects/" + x.project.ID + "/regions/" + region)
	sa.Fingerprint = x.c.fingerprint()
	sa.PscServiceAttachmentId = &compute.Uint128{High: x.c.newID(), Low: sa.Id}
	sa.ConnectedEndpoints, sa.ForceSendFields, sa.NullFields = nil, nil, nil
	x.c.st.attachments[key] = &sa
	return x.startOperation(region, mutation{kind: "insert", target: key, id: sa.Id, apply: func() *Error {
		x.c.reconcileConnections(key)
		return nil
	}}), nil
}

// checkAttachmentSettings validates and normalises what insert and patch
// share: the preference, the lists and the NAT subnetworks.
func (x *call) checkAttachmentSettings(key string, sa *compute.ServiceAttachment, region string) *Error {
	if sa.ConnectionPreference != acceptAutomatic && sa.ConnectionPreference != acceptManual {
		return errInvalid("Invalid value for field 'resource.connectionPreference': '%s'. Must be ACCEPT_AUTOMATIC or ACCEPT_MANUAL.", sa.ConnectionPreference)
	}
	if sa.ConnectionPreference == acceptAutomatic && (len(sa.ConsumerAcceptLists) > 0 || len(sa.ConsumerRejectLists) > 0) {
		return errInvalid("Consumer accept and reject lists apply to a service attachment whose connectionPreference is ACCEPT_MANUAL.")
	}
	if x.c.limits.AcceptListEntries > 0 && len(sa.ConsumerAcceptLists) > x.c.limits.AcceptListEntries {
		return errInvalid("Invalid value for field 'resource.consumerAcceptLists': %d entries; a service attachment accepts at most %d.", len(sa.ConsumerAcceptLists), x.c.limits.AcceptListEntries)
	}
	for i, entry := range sa.ConsumerAcceptLists {
		if (entry.ProjectIdOrNum == "") == (entry.NetworkUrl == "") {
			return errInvalid("Invalid value for field 'resource.consumerAcceptLists[%d]': give exactly one of projectIdOrNum and networkUrl.", i)
		}
		if entry.ConnectionLimit <= 0 {
			return errInvalid("Invalid value for field 'resource.consumerAcceptLists[%d].connectionLimit': '%d'. Must be greater than 0.", i, entry.ConnectionLimit)
		}
		if entry.NetworkUrl != "" {
			entry.NetworkUrl = x.computeLink(rel(entry.NetworkUrl))
		}
	}
	if len(sa.NatSubnets) == 0 {
		return errRequired("resource.natSubnets")
	}
	for i, nat := range sa.NatSubnets {
		natKey := x.ref(nat, region, "subnetworks")
		s := x.c.subnetwork(natKey)
		if s == nil || projectOf(natKey) != x.project.ID || lastSegment(s.Region) != region {
			return errNotFound(natKey)
		}
		if s.Purpose != purposePSC {
			return errInvalid("Invalid value for field 'resource.natSubnets[%d]': '%s'. The subnetwork's purpose must be PRIVATE_SERVICE_CONNECT.", i, nat)
		}
		if err := x.require("compute.subnetworks.use", natKey); err != nil {
			return err
		}
		for _, k := range sortedKeys(x.c.st.attachments) {
			if k != key && slices.ContainsFunc(x.c.st.attachments[k].NatSubnets, func(n string) bool { return rel(n) == natKey }) {
				return errInUse(natKey, k)
			}
		}
		sa.NatSubnets[i] = s.SelfLink
	}
	return nil
}

func getServiceAttachment(x *call) (any, *Error) {
	key := x.regionalKey("serviceAttachments", x.r.PathValue("name"))
	sa := x.c.attachment(key)
	if sa == nil {
		return nil, errNotFound(key)
	}
	return x.c.renderAttachment(sa), nil
}

func listServiceAttachments(x *call) (any, *Error) {
	prefix := x.regionalKey("serviceAttachments", "")
	var items []any
	for _, k := range sortedKeys(x.c.st.attachments) {
		if sa := x.c.attachment(k); sa != nil && strings.HasPrefix(k, prefix) {
			items = append(items, x.c.renderAttachment(sa))
		}
	}
	return x.page("compute#serviceAttachmentList", items)
}

// patchServiceAttachment applies a JSON merge patch of the settable fields,
// when the operation is DONE; the fingerprint is checked at once.
func patchServiceAttachment(x *call) (any, *Error) {
	key := x.regionalKey("serviceAttachments", x.r.PathValue("name"))
	current := x.c.attachment(key)
	if current == nil {
		return nil, errNotFound(key)
	}
	var fields map[string]json.RawMessage
	if err := x.decode(&fields); err != nil {
		return nil, err
	}
	var fp string
	if raw, ok := fields["fingerprint"]; !ok || json.Unmarshal(raw, &fp) != nil || fp == "" {
		return nil, errRequired("resource.fingerprint")
	}
	if fp != current.Fingerprint {
		return nil, errFingerprint()
	}
	next := *current
	for name, raw := range fields {
		switch name {
		case "connectionPreference", "consumerAcceptLists", "consumerRejectLists", "natSubnets", "enableProxyProtocol", "description", "reconcileConnections":
			if err := mergeField(&next, name, raw); err != nil {
				return nil, err
			}
		case "fingerprint", "name", "kind", "selfLink", "region", "id", "creationTimestamp", "targetService", "producerForwardingRule",
			"connectedEndpoints", "pscServiceAttachmentId", "domainNames", "metadata", "natIpsPerEndpoint", "propagatedConnectionLimit":
			// Read-only, or not modelled as changeable (gcloud's update sends the whole resource back).
		default:
			return nil, errInvalid("Invalid value for field 'resource.%s': cloudsim patches connectionPreference, consumerAcceptLists, consumerRejectLists, natSubnets, enableProxyProtocol, description and reconcileConnections.", name)
		}
	}
	if err := x.checkAttachmentSettings(key, &next, x.r.PathValue("region")); err != nil {
		return nil, err
	}
	for _, old := range current.NatSubnets {
		if !slices.Contains(next.NatSubnets, old) && x.c.attachmentUsesNAT(key) {
			return nil, errInUse(rel(old), key)
		}
	}
	next.Fingerprint = x.c.fingerprint()
	current.Fingerprint = next.Fingerprint
	return x.startOperation(x.r.PathValue("region"), mutation{kind: "patch", target: key, id: current.Id, apply: func() *Error {
		if x.c.st.attachments[key] == nil {
			return errNotFound(key)
		}
		x.c.st.attachments[key] = &next
		x.c.reconcileConnections(key)
		return nil
	}}), nil
}

// mergeField sets one JSON field of sa from raw (null clears it).
func mergeField(sa *compute.ServiceAttachment, name string, raw json.RawMessage) *Error {
	patch, _ := json.Marshal(map[string]json.RawMessage{name: raw})
	switch name {
	case "consumerAcceptLists":
		sa.ConsumerAcceptLists = nil
	case "consumerRejectLists":
		sa.ConsumerRejectLists = nil
	case "natSubnets":
		sa.NatSubnets = nil
	}
	if err := json.Unmarshal(patch, sa); err != nil {
		return errInvalid("Invalid value for field 'resource.%s': %v", name, err)
	}
	return nil
}

func deleteServiceAttachment(x *call) (any, *Error) {
	key := x.regionalKey("serviceAttachments", x.r.PathValue("name"))
	sa := x.c.attachment(key)
	if sa == nil {
		return nil, errNotFound(key)
	}
	return x.startOperation(x.r.PathValue("region"), mutation{kind: "delete", target: key, id: sa.Id, apply: func() *Error {
		delete(x.c.st.attachments, key)
		x.c.reconcileConnections(key)
		return nil
	}}), nil
}
