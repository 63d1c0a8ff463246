package gcp

import "net/http"

// routes registers every method the GCP half serves.
func (c *Cloud) routes() *http.ServeMux {
	mux := http.NewServeMux()
	c.registerOperations(mux)
	c.registerNetworks(mux)
	c.registerSubnetworks(mux)
	c.registerAddresses(mux)
	c.registerForwardingRules(mux)
	c.registerServiceAttachments(mux)
	c.registerAggregated(mux)
	c.registerSetLabels(mux)
	c.registerDNS(mux)
	c.handle(mux, "POST /oauth2/token", api{service: "oauth2.googleapis.com", method: "token", anonymous: true}, exchangeJWTBearer)
	c.handle(mux, "POST /sts/v1/token", api{service: "sts.googleapis.com", method: "token", anonymous: true, before: fetchIssuerKeys}, exchangeToken)
	c.handle(mux, "POST /iamcredentials/v1/projects/{saProject}/serviceAccounts/{account}",
		api{service: "iamcredentials.googleapis.com", method: "serviceAccounts.{action}"}, generateAccessToken)
	c.registerRoles(mux)
	c.registerServiceAccounts(mux)
	c.registerPools(mux)
	for _, version := range []string{"v1", "v3"} {
		c.handle(mux, "POST /cloudresourcemanager/"+version+"/projects/{resource}",
			api{service: "cloudresourcemanager.googleapis.com", method: "projects.{action}"}, projectIamPolicy)
		c.handle(mux, "GET /cloudresourcemanager/"+version+"/projects/{project}",
			api{service: "cloudresourcemanager.googleapis.com", method: "projects.get", permission: "resourcemanager.projects.get"}, getProject)
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, &Error{Code: http.StatusNotFound, Reason: "notFound", Message: "cloudsim does not serve " + r.Method + " " + r.URL.Path})
	})
	return mux
}
