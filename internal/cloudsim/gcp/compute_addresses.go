package gcp

import (
	"net/http"
	"strings"

	"google.golang.org/api/compute/v1"
)

// Internal addresses (https://cloud.google.com/compute/docs/reference/rest/v1/addresses):
// an IP reserved in a PRIVATE subnetwork — given, or the lowest free one —
// RESERVED until a forwarding rule uses it (IN_USE, listed in users), and
// not deletable while in use. External addresses are not modelled.

func (c *Cloud) registerAddresses(mux *http.ServeMux) {
	const path = "/compute/v1/projects/{project}/regions/{region}/addresses"
	c.handle(mux, "POST "+path, computeAPI("addresses.insert", "compute.addresses.create"), insertAddress)
	c.handle(mux, "GET "+path, computeAPI("addresses.list", "compute.addresses.list"), listAddresses)
	c.handle(mux, "GET "+path+"/{name}", computeAPI("addresses.get", "compute.addresses.get"), getAddress)
	c.handle(mux, "DELETE "+path+"/{name}", computeAPI("addresses.delete", "compute.addresses.delete"), deleteAddress)
}

func (c *Cloud) address(key string) *compute.Address {
	if c.st.pending[key] {
		return nil
	}
	return c.st.addresses[key]
}

func insertAddress(x *call) (any, *Error) {
	if err := x.checkRegion(); err != nil {
		return nil, err
	}
	var a compute.Address
	if err := x.decode(&a); err != nil {
		return nil, err
	}
	if err := x.checkName(a.Name); err != nil {
		return nil, err
	}
	region := x.r.PathValue("region")
	key := x.regionalKey("addresses", a.Name)
	if x.c.st.addresses[key] != nil {
		return nil, errAlreadyExists(key)
	}
	if a.AddressType != "INTERNAL" {
		return nil, errInvalid("Invalid value for field 'resource.addressType': '%s'. cloudsim models INTERNAL addresses only.", a.AddressType)
	}
	if a.Subnetwork == "" {
		return nil, errRequired("resource.subnetwork")
	}
	subnetKey := x.ref(a.Subnetwork, region, "subnetworks")
	s := x.c.subnetwork(subnetKey)
	if s == nil || lastSegment(s.Region) != region {
		return nil, errNotFound(subnetKey)
	}
	if err := x.require("compute.subnetworks.use", subnetKey); err != nil {
		return nil, err
	}
	ip, err := x.takeIP(s, a.Address, "resource.address")
	if err != nil {
		return nil, err
	}
	a.Kind, a.Id, a.CreationTimestamp, a.Address = "compute#address", x.c.newID(), timestamp(x.now), ip
	a.SelfLink, a.Subnetwork = x.computeLink(key), s.SelfLink
	a.Region = x.computeLink("projects/" + x.project.ID + "/regions/" + region)
	a.Purpose = "GCE_ENDPOINT"
	a.NetworkTier, a.PrefixLength, a.Network = "", 0, ""
	if a.Labels != nil {
		a.LabelFingerprint = x.c.fingerprint()
	}
	a.ForceSendFields, a.NullFields = nil, nil
	x.c.st.addresses[key] = &a
	return x.startOperation(region, mutation{kind: "insert", target: key, id: a.Id}), nil
}

// renderAddress adds the computed status and users.
func (c *Cloud) renderAddress(a *compute.Address) *compute.Address {
	out := *a
	out.Status, out.Users = "RESERVED", nil
	if user := c.addressUser(rel(a.SelfLink)); user != nil {
		out.Status, out.Users = "IN_USE", []string{user.SelfLink}
	}
	return &out
}

// addressUser is the forwarding rule that uses an address, if any.
func (c *Cloud) addressUser(key string) *compute.ForwardingRule {
	for _, k := range sortedKeys(c.st.ruleAddress) {
		if c.st.ruleAddress[k] == key {
			return c.st.forwardingRules[k]
		}
	}
	return nil
}

func getAddress(x *call) (any, *Error) {
	key := x.regionalKey("addresses", x.r.PathValue("name"))
	a := x.c.address(key)
	if a == nil {
		return nil, errNotFound(key)
	}
	return x.c.renderAddress(a), nil
}

func listAddresses(x *call) (any, *Error) {
	prefix := x.regionalKey("addresses", "")
	var items []any
	for _, k := range sortedKeys(x.c.st.addresses) {
		if a := x.c.address(k); a != nil && strings.HasPrefix(k, prefix) {
			items = append(items, x.c.renderAddress(a))
		}
	}
	return x.page("compute#addressList", items)
}

func deleteAddress(x *call) (any, *Error) {
	key := x.regionalKey("addresses", x.r.PathValue("name"))
	a := x.c.address(key)
	if a == nil {
		return nil, errNotFound(key)
	}
	if user := x.c.addressUser(key); user != nil {
		return nil, errInUse(key, rel(user.SelfLink))
	}
	return x.startOperation(x.r.PathValue("region"), mutation{kind: "delete", target: key, id: a.Id, apply: func() *Error {
		delete(x.c.st.addresses, key)
		return nil
	}}), nil
}
