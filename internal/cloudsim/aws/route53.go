package aws

import "net/http"

// resolveRoute53 maps a Route 53 REST request (method and path) to its
// operation and handler, and sets call.Action and call.PathVars.
func resolveRoute53(call *Call) (Handler, *APIError) {
	call.Action = "Unknown"
	return nil, &APIError{Status: http.StatusNotFound, Code: "UnknownOperationException",
		Message: "No Route 53 operation matches " + call.Request.Method + " " + call.Request.URL.Path}
}
