package aws

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strconv"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// ClientToken derives the idempotency token of a create from the owning
// object's UID and a generation that is raised only when the resource is
// deliberately replaced. A restart between "created" and "status written"
// thus repeats the same create and gets the same resource back. EC2 allows
// 64 ASCII characters; a hash keeps the token short and opaque.
func ClientToken(purpose, uid string, generation int64) string {
	sum := sha256.Sum256([]byte(purpose + "/" + uid + "/" + strconv.FormatInt(generation, 10)))
	return "hcplink-" + hex.EncodeToString(sum[:])[:40]
}

// EC2Tags turns a tag map into EC2 tags, sorted by key so that requests are
// stable (and fingerprints of retried creates match).
func EC2Tags(tags map[string]string) []ec2types.Tag {
	keys := make([]string, 0, len(tags))
	for k := range tags {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]ec2types.Tag, 0, len(keys))
	for _, k := range keys {
		out = append(out, ec2types.Tag{Key: awssdk.String(k), Value: awssdk.String(tags[k])})
	}
	return out
}

// TagSpecifications tags a resource at creation.
func TagSpecifications(resourceType ec2types.ResourceType, tags map[string]string) []ec2types.TagSpecification {
	return []ec2types.TagSpecification{{ResourceType: resourceType, Tags: EC2Tags(tags)}}
}

// TagMap turns EC2 tags back into a map.
func TagMap(tags []ec2types.Tag) map[string]string {
	out := make(map[string]string, len(tags))
	for _, t := range tags {
		out[awssdk.ToString(t.Key)] = awssdk.ToString(t.Value)
	}
	return out
}

// TagDiff returns the tags to set (missing or with another value) and the
// keys to remove to make actual equal desired, among the keys managed says
// we own; tags outside managed (a customer's own) are never touched.
func TagDiff(desired, actual map[string]string, managed func(key string) bool) (set map[string]string, remove []string) {
	set = map[string]string{}
	for k, v := range desired {
		if got, ok := actual[k]; !ok || got != v {
			set[k] = v
		}
	}
	for k := range actual {
		if _, want := desired[k]; !want && managed(k) {
			remove = append(remove, k)
		}
	}
	sort.Strings(remove)
	return set, remove
}
