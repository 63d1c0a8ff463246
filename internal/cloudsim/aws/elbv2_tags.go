package aws

import (
	"sort"
	"strings"
)

func init() {
	registerQuery("elasticloadbalancing", "AddTags", addELBTags)
	registerQuery("elasticloadbalancing", "RemoveTags", removeELBTags)
	registerQuery("elasticloadbalancing", "DescribeTags", describeELBTags)
}

// elbMaxTags is AWS's limit of tags per load balancer.
const elbMaxTags = 50

type elbTagXML struct {
	Key   string `xml:"Key"`
	Value string `xml:"Value"`
}

type elbTagDescriptionXML struct {
	ResourceArn string      `xml:"ResourceArn"`
	Tags        []elbTagXML `xml:"Tags>member"`
}

type describeELBTagsResult struct {
	TagDescriptions []elbTagDescriptionXML `xml:"TagDescriptions>member"`
}

// elbTaggable checks that each ARN names a live NLB of the caller's region.
func elbTaggable(call *Call, arns []string) *APIError {
	if len(arns) == 0 {
		return errMissingParameter("ResourceArns")
	}
	for _, arn := range arns {
		if strings.Contains(arn, ":targetgroup/") {
			return errBadRequest("TargetGroupNotFound", "Target groups '%s' not found", arn)
		}
		if call.Region.LoadBalancer(arn) == nil {
			return errBadRequest("LoadBalancerNotFound", "Load balancer '%s' not found", arn)
		}
	}
	return nil
}

func addELBTags(call *Call) (any, *APIError) {
	arns := call.Members("ResourceArns")
	if err := elbTaggable(call, arns); err != nil {
		return nil, err
	}
	tags := call.MemberTags("Tags")
	if len(tags) == 0 {
		return nil, errMissingParameter("Tags")
	}
	for _, arn := range arns {
		merged := len(tags)
		for k := range call.Region.TagsOf(arn) {
			if _, overwritten := tags[k]; !overwritten {
				merged++
			}
		}
		if merged > elbMaxTags {
			return nil, errBadRequest("TooManyTags", "The quota for the number of tags that can be assigned to a load balancer has been reached")
		}
	}
	for _, arn := range arns {
		call.Region.SetTags(arn, tags)
	}
	return elbEmptyResult{}, nil
}

func removeELBTags(call *Call) (any, *APIError) {
	arns := call.Members("ResourceArns")
	if err := elbTaggable(call, arns); err != nil {
		return nil, err
	}
	keys := call.Members("TagKeys")
	if len(keys) == 0 {
		return nil, errMissingParameter("TagKeys")
	}
	for _, arn := range arns {
		tags := call.Region.TagsOf(arn)
		for _, k := range keys {
			delete(tags, k)
		}
	}
	return elbEmptyResult{}, nil
}

func describeELBTags(call *Call) (any, *APIError) {
	arns := call.Members("ResourceArns")
	if err := elbTaggable(call, arns); err != nil {
		return nil, err
	}
	if len(arns) > 20 {
		return nil, errBadRequest("ValidationError", "At most 20 resource ARNs can be described at once")
	}
	var out describeELBTagsResult
	for _, arn := range arns {
		d := elbTagDescriptionXML{ResourceArn: arn}
		tags := call.Region.TagsOf(arn)
		keys := make([]string, 0, len(tags))
		for k := range tags {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			d.Tags = append(d.Tags, elbTagXML{Key: k, Value: tags[k]})
		}
		out.TagDescriptions = append(out.TagDescriptions, d)
	}
	return out, nil
}
