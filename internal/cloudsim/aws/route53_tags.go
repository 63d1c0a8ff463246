package aws

import (
	"encoding/xml"
	"net/http"
	"sort"
)

// Route 53 tags: hostedzone only (health checks are not modelled).

type r53TagXML struct {
	Key   string `xml:"Key"`
	Value string `xml:"Value"`
}

type r53ResourceTagSetXML struct {
	ResourceType string `xml:"ResourceType"`
	ResourceID   string `xml:"ResourceId"`
	Tags         struct {
		Items []r53TagXML `xml:"Tag"`
	} `xml:"Tags"`
}

// maxRoute53Tags is Route 53's limit of tags per resource.
const maxRoute53Tags = 50

func taggedZone(call *Call, resourceType, id string) (*HostedZone, *APIError) {
	switch resourceType {
	case "hostedzone":
	case "healthcheck":
		return nil, route53Err(http.StatusNotFound, "NoSuchHealthCheck", "No health check exists with the specified ID %s", id)
	default:
		return nil, invalidInput("1 validation error detected: Value '%s' at 'resourceType' failed to satisfy constraint: Member must satisfy enum value set: [healthcheck, hostedzone]", resourceType)
	}
	z := call.Account.Route53.HostedZones[bareZoneID(id)]
	if z == nil {
		return nil, noSuchHostedZone(bareZoneID(id))
	}
	return z, nil
}

func zoneTagSet(z *HostedZone) r53ResourceTagSetXML {
	set := r53ResourceTagSetXML{ResourceType: "hostedzone", ResourceID: z.ID}
	keys := make([]string, 0, len(z.Tags))
	for k := range z.Tags {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		set.Tags.Items = append(set.Tags.Items, r53TagXML{Key: k, Value: z.Tags[k]})
	}
	return set
}

type changeTagsForResourceResponse struct {
	XMLName xml.Name `xml:"https://route53.amazonaws.com/doc/2013-04-01/ ChangeTagsForResourceResponse"`
}

func changeTagsForResource(call *Call) (any, *APIError) {
	z, err := taggedZone(call, call.PathVars["ResourceType"], call.PathVars["ResourceId"])
	if err != nil {
		return nil, err
	}
	var req struct {
		AddTags       []r53TagXML `xml:"AddTags>Tag"`
		RemoveTagKeys []string    `xml:"RemoveTagKeys>Key"`
	}
	if err := decodeRoute53Body(call, &req); err != nil {
		return nil, err
	}
	tags := map[string]string{}
	for k, v := range z.Tags {
		tags[k] = v
	}
	for _, t := range req.AddTags {
		if t.Key == "" {
			return nil, invalidInput("1 validation error detected: a tag key must not be empty")
		}
		tags[t.Key] = t.Value
	}
	for _, k := range req.RemoveTagKeys {
		delete(tags, k)
	}
	if len(tags) > maxRoute53Tags {
		return nil, invalidInput("The number of tags for the resource would exceed the limit of %d.", maxRoute53Tags)
	}
	z.Tags = tags
	return &RestResult{Body: changeTagsForResourceResponse{}}, nil
}

type listTagsForResourceResponse struct {
	XMLName        xml.Name             `xml:"https://route53.amazonaws.com/doc/2013-04-01/ ListTagsForResourceResponse"`
	ResourceTagSet r53ResourceTagSetXML `xml:"ResourceTagSet"`
}

func listTagsForResource(call *Call) (any, *APIError) {
	z, err := taggedZone(call, call.PathVars["ResourceType"], call.PathVars["ResourceId"])
	if err != nil {
		return nil, err
	}
	return &RestResult{Body: listTagsForResourceResponse{ResourceTagSet: zoneTagSet(z)}}, nil
}

type listTagsForResourcesResponse struct {
	XMLName xml.Name               `xml:"https://route53.amazonaws.com/doc/2013-04-01/ ListTagsForResourcesResponse"`
	Sets    []r53ResourceTagSetXML `xml:"ResourceTagSets>ResourceTagSet"`
}

func listTagsForResources(call *Call) (any, *APIError) {
	var req struct {
		IDs []string `xml:"ResourceIds>ResourceId"`
	}
	if err := decodeRoute53Body(call, &req); err != nil {
		return nil, err
	}
	if len(req.IDs) == 0 || len(req.IDs) > 10 {
		return nil, invalidInput("1 validation error detected: Value at 'resourceIds' failed to satisfy constraint: Member must have length between 1 and 10")
	}
	var resp listTagsForResourcesResponse
	for _, id := range req.IDs {
		z, err := taggedZone(call, call.PathVars["ResourceType"], id)
		if err != nil {
			return nil, err
		}
		resp.Sets = append(resp.Sets, zoneTagSet(z))
	}
	return &RestResult{Body: resp}, nil
}
