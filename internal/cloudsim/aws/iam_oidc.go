package aws

import (
	"net/url"
	"regexp"
	"sort"
	"strings"
)

// IAM OpenID Connect providers: the trust anchors of
// AssumeRoleWithWebIdentity.

func init() {
	for action, h := range map[string]Handler{
		"CreateOpenIDConnectProvider":             createOpenIDConnectProvider,
		"GetOpenIDConnectProvider":                getOpenIDConnectProvider,
		"DeleteOpenIDConnectProvider":             deleteOpenIDConnectProvider,
		"ListOpenIDConnectProviders":              listOpenIDConnectProviders,
		"AddClientIDToOpenIDConnectProvider":      addClientIDToOpenIDConnectProvider,
		"RemoveClientIDFromOpenIDConnectProvider": removeClientIDFromOpenIDConnectProvider,
		"UpdateOpenIDConnectProviderThumbprint":   updateOpenIDConnectProviderThumbprint,
		"TagOpenIDConnectProvider":                tagOpenIDConnectProvider,
		"UntagOpenIDConnectProvider":              untagOpenIDConnectProvider,
		"ListOpenIDConnectProviderTags":           listOpenIDConnectProviderTags,
	} {
		registerQuery("iam", action, h)
	}
}

var thumbprintPattern = regexp.MustCompile(`^[0-9a-fA-F]{40}$`)

func thumbprints(call *Call) ([]string, *APIError) {
	list := call.Members("ThumbprintList")
	if len(list) > 5 {
		return nil, iamValidation("1 validation error detected: Value at 'thumbprintList' failed to satisfy constraint: Member must have length less than or equal to 5")
	}
	for _, t := range list {
		if !thumbprintPattern.MatchString(t) {
			return nil, iamValidation("1 validation error detected: Value '%s' at 'thumbprintList' failed to satisfy constraint: each thumbprint must be 40 hexadecimal characters", t)
		}
	}
	return list, nil
}

func uniqueStrings(list []string) []string {
	var out []string
	for _, s := range list {
		if !contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

type createOpenIDConnectProviderResult struct {
	Arn  string              `xml:"OpenIDConnectProviderArn"`
	Tags *members[iamTagXML] `xml:"Tags,omitempty"`
}

func createOpenIDConnectProvider(call *Call) (any, *APIError) {
	raw, err := iamRequired(call, "Url", "url")
	if err != nil {
		return nil, err
	}
	u, perr := url.Parse(raw)
	if perr != nil || u.Scheme != "https" || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || len(raw) > 255 {
		return nil, iamErr(400, "InvalidInput", "Invalid URL %s: an OpenID Connect provider URL must begin with https:// and have no query or fragment.", raw)
	}
	clientIDs := uniqueStrings(call.Members("ClientIDList"))
	if len(clientIDs) > 100 {
		return nil, iamLimitExceeded("Cannot exceed quota for ClientIdsPerOpenIdConnectProvider: 100")
	}
	prints, err := thumbprints(call)
	if err != nil {
		return nil, err
	}
	iam := call.Account.IAM
	arn := "arn:aws:iam::" + call.Account.ID + ":oidc-provider/" + oidcHostPath(raw)
	if iam.OIDCProviders[arn] != nil {
		return nil, entityAlreadyExists("Provider with url %s already exists.", raw)
	}
	tags, err := mergeIAMTags(call, nil, "OpenIDConnectProvider")
	if err != nil {
		return nil, err
	}
	iam.OIDCProviders[arn] = &OIDCProvider{
		ARN: arn, URL: strings.TrimSuffix(raw, "/"), ClientIDs: clientIDs, Thumbprints: prints, CreatedAt: call.Now, Tags: tags,
	}
	return createOpenIDConnectProviderResult{Arn: arn, Tags: tagMembers(tags)}, nil
}

func oidcProviderParam(call *Call) (*OIDCProvider, *APIError) {
	arn, err := iamRequired(call, "OpenIDConnectProviderArn", "openIDConnectProviderArn")
	if err != nil {
		return nil, err
	}
	p := call.Account.IAM.OIDCProviders[arn]
	if p == nil {
		return nil, noSuchEntity("OpenIDConnect Provider not found for arn %s", arn)
	}
	return p, nil
}

type getOpenIDConnectProviderResult struct {
	URL            string              `xml:"Url"`
	ClientIDList   members[string]     `xml:"ClientIDList"`
	ThumbprintList members[string]     `xml:"ThumbprintList"`
	CreateDate     string              `xml:"CreateDate"`
	Tags           *members[iamTagXML] `xml:"Tags,omitempty"`
}

// getOpenIDConnectProvider answers the URL without its scheme, as IAM does.
func getOpenIDConnectProvider(call *Call) (any, *APIError) {
	p, err := oidcProviderParam(call)
	if err != nil {
		return nil, err
	}
	return getOpenIDConnectProviderResult{
		URL: p.HostPath(), ClientIDList: members[string]{p.ClientIDs}, ThumbprintList: members[string]{p.Thumbprints},
		CreateDate: iamTime(p.CreatedAt), Tags: tagMembers(p.Tags),
	}, nil
}

// deleteOpenIDConnectProvider succeeds for a provider that does not exist:
// IAM documents the operation as idempotent.
func deleteOpenIDConnectProvider(call *Call) (any, *APIError) {
	arn, err := iamRequired(call, "OpenIDConnectProviderArn", "openIDConnectProviderArn")
	if err != nil {
		return nil, err
	}
	delete(call.Account.IAM.OIDCProviders, arn)
	return nil, nil
}

type listOpenIDConnectProvidersResult struct {
	Providers members[struct {
		Arn string `xml:"Arn"`
	}] `xml:"OpenIDConnectProviderList"`
}

func listOpenIDConnectProviders(call *Call) (any, *APIError) {
	arns := make([]string, 0, len(call.Account.IAM.OIDCProviders))
	for arn := range call.Account.IAM.OIDCProviders {
		arns = append(arns, arn)
	}
	sort.Strings(arns)
	var out listOpenIDConnectProvidersResult
	for _, arn := range arns {
		out.Providers.Items = append(out.Providers.Items, struct {
			Arn string `xml:"Arn"`
		}{arn})
	}
	return out, nil
}

func addClientIDToOpenIDConnectProvider(call *Call) (any, *APIError) {
	p, err := oidcProviderParam(call)
	if err != nil {
		return nil, err
	}
	id, err := iamRequired(call, "ClientID", "clientID")
	if err != nil {
		return nil, err
	}
	if !contains(p.ClientIDs, id) {
		if len(p.ClientIDs) >= 100 {
			return nil, iamLimitExceeded("Cannot exceed quota for ClientIdsPerOpenIdConnectProvider: 100")
		}
		p.ClientIDs = append(p.ClientIDs, id)
	}
	return nil, nil
}

func removeClientIDFromOpenIDConnectProvider(call *Call) (any, *APIError) {
	p, err := oidcProviderParam(call)
	if err != nil {
		return nil, err
	}
	id, err := iamRequired(call, "ClientID", "clientID")
	if err != nil {
		return nil, err
	}
	var kept []string
	for _, c := range p.ClientIDs {
		if c != id {
			kept = append(kept, c)
		}
	}
	p.ClientIDs = kept
	return nil, nil
}

func updateOpenIDConnectProviderThumbprint(call *Call) (any, *APIError) {
	p, err := oidcProviderParam(call)
	if err != nil {
		return nil, err
	}
	prints, err := thumbprints(call)
	if err != nil {
		return nil, err
	}
	p.Thumbprints = prints
	return nil, nil
}

func tagOpenIDConnectProvider(call *Call) (any, *APIError) {
	p, err := oidcProviderParam(call)
	if err != nil {
		return nil, err
	}
	tags, err := mergeIAMTags(call, p.Tags, "OpenIDConnectProvider")
	if err != nil {
		return nil, err
	}
	p.Tags = tags
	return nil, nil
}

func untagOpenIDConnectProvider(call *Call) (any, *APIError) {
	p, err := oidcProviderParam(call)
	if err != nil {
		return nil, err
	}
	for _, k := range call.Members("TagKeys") {
		delete(p.Tags, k)
	}
	return nil, nil
}

func listOpenIDConnectProviderTags(call *Call) (any, *APIError) {
	p, err := oidcProviderParam(call)
	if err != nil {
		return nil, err
	}
	page, truncated, marker, err := iamPage(call, iamTagsWire(p.Tags), func(t iamTagXML) string { return t.Key })
	if err != nil {
		return nil, err
	}
	return listTagsResult{Tags: members[iamTagXML]{page}, IsTruncated: truncated, Marker: marker}, nil
}
