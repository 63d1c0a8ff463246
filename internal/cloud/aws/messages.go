package aws

import (
	"errors"
	"regexp"
	"strings"

	"github.com/aws/smithy-go"
)

// MaxMessageLength bounds a condition message built from an AWS error, so a
// long AWS answer never bloats an object's status.
const MaxMessageLength = 300

// requestIDPattern matches what identifies one request rather than the
// problem: UUIDs, "RequestID: ..." / "request id ..." fragments.
var requestIDPattern = regexp.MustCompile(`(?i)(request[ -_]?id:?\s*\S+|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})`)

// httpDumpPattern matches the SDK's transport wording that means nothing to
// a user.
var httpDumpPattern = regexp.MustCompile(`(?i)(https? response error[^,]*,?|StatusCode:\s*\d+,?|operation error [^:]*:)`)

// ErrorMessage turns an AWS error into a condition message: the operation,
// the AWS error code, a plain explanation of its class, and AWS's own
// message scrubbed of request IDs and HTTP wording, at most
// MaxMessageLength characters. It never returns the raw err.Error() of an
// SDK error, which carries the request ID and the HTTP status.
func ErrorMessage(err error) string {
	if err == nil {
		return ""
	}
	var b strings.Builder
	var opErr *smithy.OperationError
	if errors.As(err, &opErr) {
		b.WriteString(opErr.ServiceID + " " + opErr.OperationName + " failed")
	} else {
		b.WriteString("The AWS call failed")
	}
	code := ErrorCode(err)
	if code != "" {
		b.WriteString(" with " + code)
	}
	var apiErr smithy.APIError
	awsSays := ""
	if errors.As(err, &apiErr) {
		awsSays = Scrub(apiErr.ErrorMessage())
	}
	class := Classify(err)
	if action := deniedAction(awsSays); class == ClassAccessDenied && action != "" {
		// AWS's own message names the action only after the caller's
		// ARN, where the bound would cut it: say it first.
		b.WriteString(": the identity lacks " + action + ": grant it to the identity that makes this call.")
	} else {
		b.WriteString(": " + explanation(class))
	}
	if awsSays != "" {
		b.WriteString(" AWS says: " + awsSays)
	}
	return Bound(b.String(), MaxMessageLength)
}

// deniedActionPattern finds the action in AWS's access-denied wording:
// "... is not authorized to perform: ec2:CreateVpc on resource: ...".
var deniedActionPattern = regexp.MustCompile(`not authorized to perform: ([a-z0-9-]+:[A-Za-z0-9*]+)`)

// deniedAction is the IAM action an access-denied message names, or "".
func deniedAction(message string) string {
	if m := deniedActionPattern.FindStringSubmatch(message); m != nil {
		return m[1]
	}
	return ""
}

func explanation(class ErrorClass) string {
	switch class {
	case ClassThrottled:
		return "AWS throttled the request; retrying with backoff."
	case ClassNotFound:
		return "the resource does not exist."
	case ClassAccessDenied:
		return "the credentials were refused or lack a permission: grant it to the identity that makes this call."
	case ClassServerError:
		return "AWS did not answer or failed; retrying soon."
	case ClassDependency:
		return "another resource still depends on it or is changing; retrying after a delay."
	case ClassInvalidInput:
		return "a value in the request is not valid; check the cluster's AWS settings."
	default:
		return "AWS refused the request; check the cluster's AWS settings."
	}
}

// Scrub removes request IDs and HTTP transport wording from text and
// collapses whitespace.
func Scrub(text string) string {
	text = requestIDPattern.ReplaceAllString(text, "")
	text = httpDumpPattern.ReplaceAllString(text, "")
	return strings.Join(strings.Fields(text), " ")
}

// Bound cuts text to at most n bytes on a rune boundary, marking the cut.
func Bound(text string, n int) string {
	if len(text) <= n {
		return text
	}
	cut := n - len("…")
	for cut > 0 && !isRuneStart(text[cut]) {
		cut--
	}
	return text[:cut] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
