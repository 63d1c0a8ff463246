package gcp

import (
	"net/http"
	"strings"
)

// Aggregated lists (e.g. https://cloud.google.com/compute/docs/reference/rest/v1/forwardingRules/aggregatedList):
// a project's regional resources of one collection grouped by scope,
// {"items": {"regions/us-central1": {"forwardingRules": [...]}}} — what
// gcloud's list commands ask for when no region is given. The filter
// applies; the answer is one page, and scopes without items are left out.

type aggregatedCollection struct {
	collection string // the path segment and the scoped list's field
	kind       string
	render     func(c *Cloud, key string) any // nil when the key is not visible
}

var aggregatedCollections = []aggregatedCollection{
	{"forwardingRules", "compute#forwardingRuleAggregatedList", func(c *Cloud, k string) any {
		if fr := c.forwardingRule(k); fr != nil {
			return c.renderForwardingRule(fr)
		}
		return nil
	}},
	{"addresses", "compute#addressAggregatedList", func(c *Cloud, k string) any {
		if a := c.address(k); a != nil {
			return c.renderAddress(a)
		}
		return nil
	}},
	{"subnetworks", "compute#subnetworkAggregatedList", func(c *Cloud, k string) any {
		if s := c.subnetwork(k); s != nil {
			return s
		}
		return nil
	}},
	{"serviceAttachments", "compute#serviceAttachmentAggregatedList", func(c *Cloud, k string) any {
		if sa := c.attachment(k); sa != nil {
			return c.renderAttachment(sa)
		}
		return nil
	}},
}

func (c *Cloud) registerAggregated(mux *http.ServeMux) {
	for _, agg := range aggregatedCollections {
		c.handle(mux, "GET /compute/v1/projects/{project}/aggregated/"+agg.collection,
			computeAPI(agg.collection+".aggregatedList", "compute."+agg.collection+".list"),
			func(x *call) (any, *Error) { return x.aggregatedList(agg) })
	}
}

func (c *Cloud) keysOf(collection string) []string {
	switch collection {
	case "forwardingRules":
		return sortedKeys(c.st.forwardingRules)
	case "addresses":
		return sortedKeys(c.st.addresses)
	case "subnetworks":
		return sortedKeys(c.st.subnetworks)
	}
	return sortedKeys(c.st.attachments)
}

func (x *call) aggregatedList(agg aggregatedCollection) (any, *Error) {
	byScope := map[string][]any{}
	prefix := "projects/" + x.project.ID + "/"
	for _, k := range x.c.keysOf(agg.collection) {
		item := agg.render(x.c, k)
		if item == nil || !strings.HasPrefix(k, prefix) {
			continue
		}
		scope := strings.Join(strings.Split(k, "/")[2:4], "/") // regions/REGION
		byScope[scope] = append(byScope[scope], item)
	}
	items := map[string]any{}
	for scope, list := range byScope {
		matching, err := filterItems(x.r.URL.Query().Get("filter"), list)
		if err != nil {
			return nil, err
		}
		if len(matching) > 0 {
			items[scope] = map[string]any{agg.collection: matching}
		}
	}
	return map[string]any{"kind": agg.kind, "id": "projects/" + x.project.ID + "/aggregated/" + agg.collection,
		"items": items, "selfLink": x.base + x.r.URL.Path}, nil
}
