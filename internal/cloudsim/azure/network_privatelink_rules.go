package azure

import (
	"strings"
)

// The Private Link rules, as plain functions: the alias a service gets, who
// may see it, and what state a new connection starts in.

// Connection states of a private endpoint connection, as Azure spells them.
const (
	connectionApproved     = "Approved"
	connectionPending      = "Pending"
	connectionRejected     = "Rejected"
	connectionDisconnected = "Disconnected"
)

// aliasSuffix ends every Private Link Service alias in Azure's public cloud.
const aliasSuffix = ".azure.privatelinkservice"

// privateLinkServiceAlias is the alias Azure gives a service:
// <name>.<guid>.<region>.azure.privatelinkservice, the name lower-cased.
func privateLinkServiceAlias(name, guid, region string) string {
	return strings.ToLower(name) + "." + strings.ToLower(guid) + "." + strings.ToLower(region) + aliasSuffix
}

// looksLikeAlias tells an alias from a resource ID in a connection request.
func looksLikeAlias(s string) bool {
	return !strings.HasPrefix(s, "/") && strings.HasSuffix(strings.ToLower(s), aliasSuffix)
}

// subscriptionListed reports whether subscription is in list; "*" lists
// every subscription (Azure's "anyone with the alias" visibility).
func subscriptionListed(list []string, subscription string) bool {
	for _, s := range list {
		if s == "*" || strings.EqualFold(strings.TrimSpace(s), subscription) {
			return true
		}
	}
	return false
}

// privateLinkServiceVisible reports whether an endpoint in subscription may
// see (and so connect to) a service owned by owner: its own subscription
// always may; others only through the service's visibility list.
func privateLinkServiceVisible(owner string, visibility []string, subscription string) bool {
	return strings.EqualFold(owner, subscription) || subscriptionListed(visibility, subscription)
}

// initialConnectionStatus is the state a new connection starts in: Approved
// when the endpoint's subscription is in the service's auto-approval list,
// Pending (waiting on the service owner) otherwise.
func initialConnectionStatus(autoApproval []string, subscription string) string {
	if subscriptionListed(autoApproval, subscription) {
		return connectionApproved
	}
	return connectionPending
}

// connectionDescription is the description Azure writes with an automatic
// decision.
func connectionDescription(status string) string {
	if status == connectionApproved {
		return "Auto-Approved"
	}
	return ""
}
