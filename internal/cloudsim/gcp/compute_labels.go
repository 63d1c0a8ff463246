package gcp

import (
	"net/http"

	"google.golang.org/api/compute/v1"
)

// setLabels on forwarding rules and addresses
// (https://cloud.google.com/compute/docs/reference/rest/v1/forwardingRules/setLabels):
// the labels are replaced when the current labelFingerprint is given (412
// conditionNotMet otherwise), when the operation is DONE.

func (c *Cloud) registerSetLabels(mux *http.ServeMux) {
	c.handle(mux, "POST /compute/v1/projects/{project}/regions/{region}/forwardingRules/{name}/setLabels",
		computeAPI("forwardingRules.setLabels", "compute.forwardingRules.setLabels"), func(x *call) (any, *Error) {
			key := x.regionalKey("forwardingRules", x.r.PathValue("name"))
			fr := x.c.forwardingRule(key)
			if fr == nil {
				return nil, errNotFound(key)
			}
			return x.setLabels(key, fr.Id, &fr.Labels, &fr.LabelFingerprint)
		})
	c.handle(mux, "POST /compute/v1/projects/{project}/regions/{region}/addresses/{name}/setLabels",
		computeAPI("addresses.setLabels", "compute.addresses.setLabels"), func(x *call) (any, *Error) {
			key := x.regionalKey("addresses", x.r.PathValue("name"))
			a := x.c.address(key)
			if a == nil {
				return nil, errNotFound(key)
			}
			return x.setLabels(key, a.Id, &a.Labels, &a.LabelFingerprint)
		})
}

func (x *call) setLabels(key string, id uint64, labels *map[string]string, fingerprint *string) (any, *Error) {
	var req compute.RegionSetLabelsRequest
	if err := x.decode(&req); err != nil {
		return nil, err
	}
	if req.LabelFingerprint != *fingerprint {
		return nil, errFingerprint()
	}
	next := x.c.fingerprint()
	*fingerprint = next
	return x.startOperation(x.r.PathValue("region"), mutation{kind: "setLabels", target: key, id: id, apply: func() *Error {
		*labels = req.Labels
		return nil
	}}), nil
}
