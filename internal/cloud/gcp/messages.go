package gcp

import (
	"errors"
	"regexp"
	"strings"

	"golang.org/x/oauth2"

	"github.com/hcplink/hcplink/internal/cloud"
)

// MaxMessageLength bounds a condition message built from a Google error.
const MaxMessageLength = 300

var (
	urlPattern = regexp.MustCompile(`(?i)\b(?:https?|wss?)://\S+`)
	// resourcePathPattern matches resource paths, which carry project IDs
	// and numbers; they become their last segment (the resource's name).
	resourcePathPattern = regexp.MustCompile(`\bprojects/[^\s'",;]*`)
	// projectNumberPattern matches project numbers and other long numeric
	// IDs (operation and connection IDs).
	projectNumberPattern = regexp.MustCompile(`\b\d{9,}\b`)
	requestIDPattern     = regexp.MustCompile(`(?i)request[ _-]?id[:=]?\s*\S*`)
	jsonPattern          = regexp.MustCompile(`(?s)\{.*\}|\[.*\]|[{}\[\]]`)
	leftovers            = regexp.MustCompile(`'\s*'|"\s*"|\(\s*\)`)
	operationNamePattern = regexp.MustCompile(`\boperation-[0-9a-f-]+`)
)

// ErrorMessage turns a Google error into a condition message: the reason, a
// plain explanation of its class (naming the missing permission when IAM
// refused one), and Google's own message scrubbed of URLs, resource paths,
// project numbers, request IDs and JSON, at most MaxMessageLength
// characters. It never returns the raw err.Error() of a client error,
// which carries the request URL and the JSON body.
func ErrorMessage(err error) string {
	if err == nil {
		return ""
	}
	var b strings.Builder
	if reason := Reason(err); reason != "" {
		b.WriteString("Google Cloud answered " + reason + ": ")
	} else {
		b.WriteString("The Google Cloud call failed: ")
	}
	class := Classify(err)
	if class == cloud.ClassAccessDenied {
		if p := MissingPermission(err); p != "" {
			b.WriteString("the identity lacks the permission " + p + ": grant it (see hcplink permissions gcp).")
			return Bound(b.String(), MaxMessageLength)
		}
	}
	if IsQuotaExceeded(err) {
		b.WriteString("a resource quota of the project is reached: raise it or free some of the resources it counts.")
	} else {
		b.WriteString(explanation(class))
	}
	if m := Scrub(googleMessage(err)); m != "" {
		b.WriteString(" Google Cloud says: " + m)
	}
	return Bound(b.String(), MaxMessageLength)
}

// googleMessage is Google's own message, without the client's request
// line.
func googleMessage(err error) string {
	if ge, ok := APIError(err); ok {
		return ge.Message
	}
	var oe *OperationError
	if errors.As(err, &oe) {
		return oe.Message
	}
	var se *SignInError
	if errors.As(err, &se) {
		return se.Service + " refused the sign-in: " + se.Message
	}
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		return re.ErrorDescription
	}
	return ""
}

func explanation(class cloud.Class) string {
	switch class {
	case cloud.ClassThrottled:
		return "a rate quota was reached; retrying once it refills."
	case cloud.ClassNotFound:
		return "the resource does not exist."
	case cloud.ClassAccessDenied:
		return "the credentials were refused or lack a permission: check the identity's sign-in and roles."
	case cloud.ClassServerError:
		return "Google Cloud did not answer or failed; retrying soon."
	case cloud.ClassDependency:
		return "another operation or resource is in the way; retrying after a delay."
	case cloud.ClassInvalidInput:
		return "a value in the request is not valid; check the cluster's GCP settings."
	default:
		return "Google Cloud refused the request; check the cluster's GCP settings."
	}
}

// Scrub removes URLs, resource paths (keeping the resource's name),
// project numbers, operation names, request IDs and JSON from text and
// collapses whitespace.
func Scrub(text string) string {
	text = urlPattern.ReplaceAllString(text, "")
	text = resourcePathPattern.ReplaceAllStringFunc(text, lastSegment)
	text = jsonPattern.ReplaceAllString(text, "")
	text = operationNamePattern.ReplaceAllString(text, "")
	text = projectNumberPattern.ReplaceAllString(text, "")
	text = requestIDPattern.ReplaceAllString(text, "")
	text = leftovers.ReplaceAllString(text, "")
	text = strings.ReplaceAll(text, " :", ":")
	return strings.Join(strings.Fields(text), " ")
}

func lastSegment(path string) string {
	path = strings.TrimRight(path, "/.")
	if i := strings.LastIndex(path, "/"); i >= 0 {
		return path[i+1:]
	}
	return path
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
