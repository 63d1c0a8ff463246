package azure

import (
	"fmt"
	"net/url"
	"strings"
)

// ID is a parsed ARM resource ID. Three shapes exist:
//
//	/subscriptions/{sub}/resourceGroups/{rg}/providers/{ns}/{type}/{name}[/{type}/{name}...]
//	/subscriptions/{sub}[/resourceGroups/{rg}]                (a subscription or a resource group)
//	{scope}/providers/{ns}/{type}/{name}                       (an extension resource, e.g. a role assignment)
//
// Namespace, Types and Names keep the caller's spelling; ARM compares IDs
// case-insensitively, so the store keys on Key().
type ID struct {
	// Scope is the canonical ID of the resource an extension resource hangs
	// off ("" for ordinary resources). Subscription and ResourceGroup are the
	// scope's own when set.
	Scope         string
	Subscription  string
	ResourceGroup string
	Namespace     string   // "Microsoft.Network"; "" for subscriptions and resource groups
	Types         []string // ["virtualNetworks", "subnets"]
	Names         []string // ["vnet1", "default"]; len(Names) == len(Types) for a resource
}

// SubscriptionID is the ID of a subscription.
func SubscriptionID(sub string) ID { return ID{Subscription: sub} }

// ResourceGroupID is the ID of a resource group.
func ResourceGroupID(sub, rg string) ID { return ID{Subscription: sub, ResourceGroup: rg} }

// IsResourceGroup tells whether the ID names a resource group itself.
func (id ID) IsResourceGroup() bool {
	return id.Namespace == "" && id.ResourceGroup != "" && id.Scope == ""
}

// IsSubscription tells whether the ID names a subscription itself.
func (id ID) IsSubscription() bool {
	return id.Namespace == "" && id.ResourceGroup == "" && id.Subscription != "" && id.Scope == ""
}

// Type is the full resource type: "Microsoft.Network/virtualNetworks/subnets".
func (id ID) Type() string {
	switch {
	case id.IsResourceGroup():
		return "Microsoft.Resources/resourceGroups"
	case id.IsSubscription():
		return "Microsoft.Resources/subscriptions"
	}
	return id.Namespace + "/" + strings.Join(id.Types, "/")
}

// Name is the last name segment.
func (id ID) Name() string {
	switch {
	case id.IsResourceGroup():
		return id.ResourceGroup
	case id.IsSubscription():
		return id.Subscription
	case len(id.Names) == 0:
		return ""
	}
	return id.Names[len(id.Names)-1]
}

// String renders the canonical ID, with ARM's "resourceGroups" spelling.
func (id ID) String() string {
	var b strings.Builder
	switch {
	case id.Scope != "":
		b.WriteString(id.Scope)
	case id.Subscription != "":
		b.WriteString("/subscriptions/" + id.Subscription)
		if id.ResourceGroup != "" {
			b.WriteString("/resourceGroups/" + id.ResourceGroup)
		}
	}
	if id.Namespace == "" {
		return b.String()
	}
	b.WriteString("/providers/" + id.Namespace)
	for i, t := range id.Types {
		b.WriteString("/" + t)
		if i < len(id.Names) {
			b.WriteString("/" + id.Names[i])
		}
	}
	return b.String()
}

// Key is the store key: the canonical ID, lower-cased.
func (id ID) Key() string { return strings.ToLower(id.String()) }

// Parent is the ID one level up: a subnet's virtual network, a top-level
// resource's resource group, an extension resource's scope.
func (id ID) Parent() ID {
	switch {
	case len(id.Names) > 1:
		p := id
		p.Types = id.Types[:len(id.Names)-1]
		p.Names = id.Names[:len(id.Names)-1]
		return p
	case id.Scope != "":
		p, err := ParseID(id.Scope)
		if err != nil {
			return ID{Subscription: id.Subscription, ResourceGroup: id.ResourceGroup}
		}
		return p
	case id.Namespace != "":
		return ID{Subscription: id.Subscription, ResourceGroup: id.ResourceGroup}
	case id.ResourceGroup != "":
		return ID{Subscription: id.Subscription}
	}
	return ID{}
}

// Child returns the ID of a child resource of id.
func (id ID) Child(typ, name string) ID {
	c := id
	c.Types = append(append([]string{}, id.Types...), typ)
	c.Names = append(append([]string{}, id.Names...), name)
	return c
}

// ResourceGroupID returns the ID of the resource group the resource is in.
func (id ID) ResourceGroupID() ID { return ResourceGroupID(id.Subscription, id.ResourceGroup) }

// ParseID parses a resource ID (or a URL path naming one). A trailing type
// without a name (a collection) is kept in Types with Names one shorter.
func ParseID(path string) (ID, error) {
	segs, err := splitPath(path)
	if err != nil {
		return ID{}, err
	}
	id, rest, err := parseScope(segs)
	if err != nil {
		return ID{}, err
	}
	for len(rest) > 0 {
		if !strings.EqualFold(rest[0], "providers") || len(rest) < 2 {
			return ID{}, fmt.Errorf("%q is not a resource ID: expected /providers/{namespace} after the scope", path)
		}
		if id.Namespace != "" {
			// An extension resource: what we parsed so far is its scope.
			id = ID{Scope: id.String(), Subscription: id.Subscription, ResourceGroup: id.ResourceGroup}
		}
		id.Namespace = rest[1]
		rest = rest[2:]
		for len(rest) > 0 && !strings.EqualFold(rest[0], "providers") {
			id.Types = append(id.Types, rest[0])
			if len(rest) > 1 && !strings.EqualFold(rest[1], "providers") {
				id.Names = append(id.Names, rest[1])
				rest = rest[2:]
				continue
			}
			rest = rest[1:]
		}
		if len(rest) > 0 && len(id.Names) < len(id.Types) {
			return ID{}, fmt.Errorf("%q is not a resource ID: a type without a name before /providers", path)
		}
	}
	return id, nil
}

// parseScope reads the leading /subscriptions/{sub}/resourceGroups/{rg}.
func parseScope(segs []string) (ID, []string, error) {
	var id ID
	if len(segs) >= 2 && strings.EqualFold(segs[0], "subscriptions") {
		id.Subscription = segs[1]
		segs = segs[2:]
		if len(segs) >= 2 && strings.EqualFold(segs[0], "resourceGroups") {
			id.ResourceGroup = segs[1]
			segs = segs[2:]
		}
	}
	return id, segs, nil
}

func splitPath(path string) ([]string, error) {
	path = strings.Trim(path, "/")
	if path == "" {
		return nil, nil
	}
	var segs []string
	for _, raw := range strings.Split(path, "/") {
		s, err := url.PathUnescape(raw)
		if err != nil {
			return nil, fmt.Errorf("bad path segment %q: %w", raw, err)
		}
		if s == "" {
			return nil, fmt.Errorf("empty path segment in %q", path)
		}
		segs = append(segs, s)
	}
	return segs, nil
}

// IsUnder tells whether id is scope itself or lies beneath it (ARM scopes
// nest by ID prefix).
func IsUnder(id, scope string) bool {
	id, scope = strings.ToLower(strings.TrimSuffix(id, "/")), strings.ToLower(strings.TrimSuffix(scope, "/"))
	return scope == "" || id == scope || strings.HasPrefix(id, scope+"/")
}
