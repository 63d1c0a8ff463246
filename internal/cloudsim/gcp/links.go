package gcp

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strings"
)

const (
	computeService = "compute.googleapis.com"
	dnsService     = "dns.googleapis.com"
)

// Resources refer to each other by URL: a full self link
// (https://compute.googleapis.com/compute/v1/projects/p/regions/r/subnetworks/s),
// a partial one (projects/p/regions/r/subnetworks/s, regions/r/subnetworks/s)
// or, for some fields, a bare name. The store keys on the relative form
// "projects/...", and answers carry full links on this listener.

// rel returns the "projects/..." part of a link, or link unchanged.
func rel(link string) string {
	if _, after, ok := strings.Cut(link, "/compute/v1/"); ok {
		return after
	}
	if i := strings.Index(link, "projects/"); i >= 0 && (i == 0 || link[i-1] == '/') {
		return link[i:]
	}
	return link
}

// ref resolves a reference given in a request to a relative link:
// collection is e.g. "subnetworks"; region "" for a global collection.
func (x *call) ref(value, region, collection string) string {
	value = rel(value)
	switch {
	case strings.HasPrefix(value, "projects/"):
		return value
	case strings.HasPrefix(value, "regions/"), strings.HasPrefix(value, "global/"):
		return "projects/" + x.project.ID + "/" + value
	case region == "":
		return "projects/" + x.project.ID + "/global/" + collection + "/" + value
	}
	return "projects/" + x.project.ID + "/regions/" + region + "/" + collection + "/" + value
}

// computeLink is a relative link made absolute on this listener.
func (x *call) computeLink(relative string) string {
	if relative == "" {
		return ""
	}
	return x.base + "/compute/v1/" + relative
}

// projectOf returns the project ID a relative link names.
func projectOf(relative string) string {
	parts := strings.Split(relative, "/")
	if len(parts) > 1 && parts[0] == "projects" {
		return parts[1]
	}
	return ""
}

// lastSegment is a link's resource name.
func lastSegment(link string) string {
	return link[strings.LastIndex(link, "/")+1:]
}

func (c *Cloud) newID() uint64 {
	c.st.nextID++
	return c.st.nextID
}

// fingerprint is a fresh opaque fingerprint for a resource's new version.
func (c *Cloud) fingerprint() string {
	sum := sha256.Sum256([]byte(fmt.Sprint(c.newID())))
	return base64.StdEncoding.EncodeToString(sum[:8])
}

// validName checks Compute Engine's and Cloud DNS's resource name rule
// (RFC 1035: 1-63 characters, lower-case letters, digits and hyphens,
// starting with a letter and not ending with a hyphen).
func validName(name string) bool {
	if len(name) == 0 || len(name) > 63 || name[0] < 'a' || name[0] > 'z' || name[len(name)-1] == '-' {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}

func (x *call) checkName(name string) *Error {
	if name == "" {
		return errRequired("resource.name")
	}
	if !validName(name) {
		return errInvalid("Invalid value for field 'resource.name': '%s'. Must be a match of regex '(?:[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?)'", name)
	}
	return nil
}

func (x *call) checkRegion() *Error {
	region := x.r.PathValue("region")
	for _, r := range Regions {
		if r == region {
			return nil
		}
	}
	return errNotFound("projects/" + x.project.ID + "/regions/" + region)
}
