package azure

import (
	"regexp"
	"strings"

	"github.com/hcplink/hcplink/internal/cloud"
)

// MaxMessageLength bounds a condition message built from an Azure error.
const MaxMessageLength = 300

var (
	// actionPattern finds the RBAC actions ARM names in AuthorizationFailed
	// and LinkedAuthorizationFailed; the last one is the missing one.
	actionPattern = regexp.MustCompile(`action(?:\(s\))? '([A-Za-z0-9./_*-]+)'`)
	urlPattern    = regexp.MustCompile(`(?i)\b(?:https?|wss?)://\S+`)
	// resourceIDPattern matches ARM resource IDs, which carry subscription
	// IDs; they become their last segment (the resource's name).
	resourceIDPattern = regexp.MustCompile(`(?i)/subscriptions/[^\s'",;]*`)
	uuidPattern       = regexp.MustCompile(`(?i)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	requestIDPattern  = regexp.MustCompile(`(?i)(x-ms-[a-z-]*|request[ _-]?id|correlation[ _-]?id|tracking[ _-]?id|activity[ _-]?id)[:=]?\s*\S*`)
	// jsonPattern drops embedded JSON whole (a request or response body).
	jsonPattern = regexp.MustCompile(`(?s)\{.*\}|\[.*\]|[{}\[\]]`)
	// leftovers are what the removals leave behind: empty quotes and
	// brackets, and ARM's pointer to a URL that is gone.
	openParen = regexp.MustCompile(`\(\s*(on|at|in)\b`)
	leftovers = regexp.MustCompile(`(?i)'\s*'|"\s*"|\(\s*\)|for more details,? please (go|refer) to\.?`)
)

// ErrorMessage turns an Azure error into a condition message: the code, a
// plain explanation of its class (naming the missing permission when Azure
// refused one), and ARM's own message scrubbed of URLs, resource and
// subscription IDs, request IDs and JSON, at most MaxMessageLength
// characters. It never returns the raw err.Error() of an SDK error, which
// carries the request URL, the request ID and the JSON body.
func ErrorMessage(err error) string {
	if err == nil {
		return ""
	}
	var b strings.Builder
	code := ErrorCode(err)
	if code != "" {
		b.WriteString("Azure answered " + code + ": ")
	} else {
		b.WriteString("The Azure call failed: ")
	}
	class := Classify(err)
	if class == cloud.ClassAccessDenied {
		if action := MissingAction(err); action != "" {
			b.WriteString("the identity lacks the permission " + action + ": grant it (see the permissions table).")
			return Bound(b.String(), MaxMessageLength)
		}
	}
	if IsScopeNotFound(err) {
		b.WriteString(scopeNotFoundExplanation)
	} else {
		b.WriteString(explanation(class))
	}
	if m := Scrub(armMessage(err)); m != "" && class != cloud.ClassAccessDenied {
		b.WriteString(" Azure says: " + m)
	}
	return Bound(b.String(), MaxMessageLength)
}

// MissingAction is the RBAC action an AuthorizationFailed or
// LinkedAuthorizationFailed names as missing ("" when none).
func MissingAction(err error) string {
	matches := actionPattern.FindAllStringSubmatch(armMessage(err), -1)
	if len(matches) == 0 {
		return ""
	}
	return matches[len(matches)-1][1]
}

// scopeNotFoundExplanation says what a missing subscription or resource
// group means for the cluster: nothing hcplink made there is taken as gone.
const scopeNotFoundExplanation = "the subscription or resource group does not exist, or this identity cannot see it: check the cluster's Azure subscription and resource group and the identity's role assignments. hcplink keeps what it holds until it can see its resources again."

func explanation(class cloud.Class) string {
	switch class {
	case cloud.ClassThrottled:
		return "Azure throttled the request; retrying after the time it asked for."
	case cloud.ClassNotFound:
		return "the resource does not exist."
	case cloud.ClassAccessDenied:
		return "the credentials were refused or lack a role assignment: grant it to the identity that makes this call."
	case cloud.ClassServerError:
		return "Azure did not answer or failed; retrying soon."
	case cloud.ClassDependency:
		return "another operation or resource is in the way; retrying after a delay."
	case cloud.ClassInvalidInput:
		return "a value in the request is not valid; check the cluster's Azure settings."
	default:
		return "Azure refused the request; check the cluster's Azure settings."
	}
}

// Scrub removes URLs, resource IDs (keeping the resource's name), UUIDs,
// request IDs and JSON punctuation from text and collapses whitespace.
func Scrub(text string) string {
	text = urlPattern.ReplaceAllString(text, "")
	text = resourceIDPattern.ReplaceAllStringFunc(text, lastSegment)
	text = jsonPattern.ReplaceAllString(text, "")
	text = uuidPattern.ReplaceAllString(text, "")
	text = requestIDPattern.ReplaceAllString(text, "")
	text = leftovers.ReplaceAllString(text, "")
	text = openParen.ReplaceAllString(text, "$1")
	text = strings.ReplaceAll(text, " :", ":")
	return strings.Join(strings.Fields(text), " ")
}

func lastSegment(id string) string {
	id = strings.TrimRight(id, "/.")
	if i := strings.LastIndex(id, "/"); i >= 0 {
		return id[i+1:]
	}
	return id
}

// Bound cuts text to at most n bytes on a rune boundary, marking the cut.
func Bound(text string, n int) string {
	if len(text) <= n {
		return text
	}
	cut := n - len("…")
	for cut > 0 && text[cut]&0xC0 == 0x80 {
		cut--
	}
	return text[:cut] + "…"
}
