package cloud

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// ClassOfStatus is the class of an error a provider could not classify by
// its cloud's codes, from the HTTP status the cloud answered (0: none): a
// 400 is invalid input, a 5xx the server's, any other the client's; with
// no status, a cancelled call is the client's and anything else is taken
// as transient.
func ClassOfStatus(status int, err error) Class {
	switch {
	case status == http.StatusBadRequest:
		return ClassInvalidInput
	case status >= http.StatusInternalServerError:
		return ClassServerError
	case status != 0:
		return ClassClientError
	case errors.Is(err, context.Canceled):
		return ClassClientError
	}
	return ClassServerError
}

// RetryAfter is the wait an HTTP Retry-After header value asks for (RFC
// 9110: seconds, or an HTTP date after now), zero when none or unreadable.
func RetryAfter(value string, now time.Time) time.Duration {
	v := strings.TrimSpace(value)
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil {
		if s > 0 {
			return time.Duration(s) * time.Second
		}
		return 0
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}
