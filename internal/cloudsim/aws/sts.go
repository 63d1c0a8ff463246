package aws

func init() {
	registerQuery("sts", "GetCallerIdentity", getCallerIdentity)
}

type getCallerIdentityResult struct {
	Arn     string `xml:"Arn"`
	UserID  string `xml:"UserId"`
	Account string `xml:"Account"`
}

func getCallerIdentity(call *Call) (any, *APIError) {
	return getCallerIdentityResult{Arn: call.Principal.ARN, UserID: call.Principal.UserID, Account: call.Principal.Account}, nil
}
