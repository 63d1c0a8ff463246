package aws

import "strings"

func init() {
	registerEC2("CreateTags", createTagsOp)
	registerEC2("DeleteTags", deleteTagsOp)
	registerEC2("DescribeTags", describeTags)
}

// createTagsOp tags every named resource or none: each must exist (any EC2
// resource, VPC endpoints and endpoint services included) and stay within
// 50 tags.
func createTagsOp(call *Call) (any, *APIError) {
	r := call.Region
	ids := call.List("ResourceId")
	if len(ids) == 0 {
		return nil, errMissingParameter("ResourceId")
	}
	tags := call.EC2Tags()
	if len(tags) == 0 {
		return nil, errMissingParameter("Tag")
	}
	if err := validateTags(tags); err != nil {
		return nil, err
	}
	for _, id := range ids {
		if _, err := r.resourceExists(id); err != nil {
			return nil, err
		}
		if err := r.checkTagLimit(id, tags); err != nil {
			return nil, err
		}
	}
	for _, id := range ids {
		r.SetTags(id, tags)
	}
	return ec2True, nil
}

// deleteTagsOp removes the named keys (only where the value matches, when
// a Value is given), or every tag when no Tag.N is given.
func deleteTagsOp(call *Call) (any, *APIError) {
	r := call.Region
	ids := call.List("ResourceId")
	if len(ids) == 0 {
		return nil, errMissingParameter("ResourceId")
	}
	tags := call.EC2Tags()
	for k := range tags {
		if strings.HasPrefix(strings.ToLower(k), "aws:") {
			return nil, errBadRequest("InvalidParameterValue", "Tag keys starting with 'aws:' are reserved for internal use")
		}
	}
	for _, id := range ids {
		if _, err := r.resourceExists(id); err != nil {
			return nil, err
		}
	}
	for _, id := range ids {
		have := r.TagsOf(id)
		if len(tags) == 0 {
			r.ForgetTags(id)
			continue
		}
		for k, v := range tags {
			if cur, ok := have[k]; ok && (!call.EC2TagValueGiven(k) || cur == v) {
				delete(have, k)
			}
		}
		if len(have) == 0 {
			r.ForgetTags(id)
		}
	}
	return ec2True, nil
}

type tagDescriptionXML struct {
	ResourceID   string `xml:"resourceId"`
	ResourceType string `xml:"resourceType"`
	Key          string `xml:"key"`
	Value        string `xml:"value"`
}

type describeTagsResult struct {
	Tags      []tagDescriptionXML `xml:"tagSet>item"`
	NextToken string              `xml:"nextToken,omitempty"`
}

// describeTags lists the tags of this region's EC2 resources (ELBv2 tags,
// kept by ARN in the same map, are not EC2's).
func describeTags(call *Call) (any, *APIError) {
	r := call.Region
	filters := call.Filters()
	var matched []tagDescriptionXML
	for id, tags := range r.Tags {
		k, ok := kindOf(id)
		if !ok {
			continue
		}
		for key, value := range tags {
			ok, err := matchFields(filters, tags, map[string][]string{
				"resource-id": {id}, "resource-type": {k.resourceType}, "key": {key}, "value": {value},
			})
			if err != nil {
				return nil, err
			}
			if ok {
				matched = append(matched, tagDescriptionXML{ResourceID: id, ResourceType: k.resourceType, Key: key, Value: value})
			}
		}
	}
	page, next, err := ec2Page(call, matched, func(t tagDescriptionXML) string { return t.ResourceID + "\x00" + t.Key }, 5, 1000)
	if err != nil {
		return nil, err
	}
	return describeTagsResult{Tags: page, NextToken: next}, nil
}
