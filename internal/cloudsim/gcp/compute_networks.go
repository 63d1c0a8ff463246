package gcp

import (
	"net/http"
	"strings"

	"google.golang.org/api/compute/v1"
)

// VPC networks (https://cloud.google.com/compute/docs/reference/rest/v1/networks),
// custom mode only: subnetworks are made one by one. A network with
// subnetworks cannot be deleted.

func (c *Cloud) registerNetworks(mux *http.ServeMux) {
	const path = "/compute/v1/projects/{project}/global/networks"
	c.handle(mux, "POST "+path, computeAPI("networks.insert", "compute.networks.create"), insertNetwork)
	c.handle(mux, "GET "+path, computeAPI("networks.list", "compute.networks.list"), listNetworks)
	c.handle(mux, "GET "+path+"/{name}", computeAPI("networks.get", "compute.networks.get"), getNetwork)
	c.handle(mux, "DELETE "+path+"/{name}", computeAPI("networks.delete", "compute.networks.delete"), deleteNetwork)
}

func computeAPI(method, permission string) api {
	return api{service: computeService, method: method, permission: permission}
}

func networkKey(project, name string) string {
	return "projects/" + project + "/global/networks/" + name
}

func insertNetwork(x *call) (any, *Error) {
	var n compute.Network
	if err := x.decode(&n); err != nil {
		return nil, err
	}
	if err := x.checkName(n.Name); err != nil {
		return nil, err
	}
	if n.AutoCreateSubnetworks || n.IPv4Range != "" {
		return nil, errInvalid("Invalid value for field 'resource.autoCreateSubnetworks': 'true'. cloudsim models custom-mode networks only; create the network with autoCreateSubnetworks false (gcloud --subnet-mode=custom).")
	}
	key := networkKey(x.project.ID, n.Name)
	if x.c.st.networks[key] != nil {
		return nil, errAlreadyExists(key)
	}
	n.Kind, n.Id, n.SelfLink, n.CreationTimestamp = "compute#network", x.c.newID(), x.computeLink(key), timestamp(x.now)
	n.SelfLinkWithId = x.computeLink("projects/" + x.project.ID + "/global/networks/" + itoa(n.Id))
	if n.Mtu == 0 {
		n.Mtu = 1460
	}
	if n.RoutingConfig == nil {
		n.RoutingConfig = &compute.NetworkRoutingConfig{RoutingMode: "REGIONAL"}
	}
	n.ForceSendFields, n.NullFields = nil, nil
	x.c.st.networks[key] = &n
	return x.startOperation("", mutation{kind: "insert", target: key, id: n.Id}), nil
}

// network returns a visible network by relative link.
func (c *Cloud) network(key string) *compute.Network {
	if c.st.pending[key] {
		return nil
	}
	return c.st.networks[key]
}

func (x *call) renderNetwork(n *compute.Network) *compute.Network {
	out := *n
	out.Subnetworks = nil
	for _, k := range sortedKeys(x.c.st.subnetworks) {
		if s := x.c.subnetwork(k); s != nil && rel(s.Network) == rel(n.SelfLink) {
			out.Subnetworks = append(out.Subnetworks, s.SelfLink)
		}
	}
	return &out
}

func getNetwork(x *call) (any, *Error) {
	key := networkKey(x.project.ID, x.r.PathValue("name"))
	n := x.c.network(key)
	if n == nil {
		return nil, errNotFound(key)
	}
	return x.renderNetwork(n), nil
}

func listNetworks(x *call) (any, *Error) {
	prefix := "projects/" + x.project.ID + "/global/networks/"
	var items []any
	for _, k := range sortedKeys(x.c.st.networks) {
		if n := x.c.network(k); n != nil && strings.HasPrefix(k, prefix) {
			items = append(items, x.renderNetwork(n))
		}
	}
	return x.page("compute#networkList", items)
}

func deleteNetwork(x *call) (any, *Error) {
	key := networkKey(x.project.ID, x.r.PathValue("name"))
	n := x.c.network(key)
	if n == nil {
		return nil, errNotFound(key)
	}
	for _, k := range sortedKeys(x.c.st.subnetworks) {
		if s := x.c.st.subnetworks[k]; rel(s.Network) == key {
			return nil, errInUse(key, k)
		}
	}
	for _, k := range sortedKeys(x.c.st.forwardingRules) {
		if fr := x.c.st.forwardingRules[k]; rel(fr.Network) == key {
			return nil, errInUse(key, k)
		}
	}
	return x.startOperation("", mutation{kind: "delete", target: key, id: n.Id, apply: func() *Error {
		delete(x.c.st.networks, key)
		return nil
	}}), nil
}

func itoa(n uint64) string {
	const digits = "0123456789"
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{digits[n%10]}, b...)
	}
	return string(b)
}
