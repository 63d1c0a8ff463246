package aws

// IAMState is the IAM model of one account (IAM is global). Owner: iam*.go.
type IAMState struct {
	Roles map[string]*Role `json:"roles"` // by role name
}

func newIAMState() *IAMState { return &IAMState{Roles: map[string]*Role{}} }

// Role is an IAM role.
type Role struct {
	Name                     string `json:"name"`
	Path                     string `json:"path"`
	ARN                      string `json:"arn"`
	AssumeRolePolicyDocument string `json:"assumeRolePolicyDocument"`
}
