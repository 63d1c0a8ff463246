package aws

import (
	"sort"
	"strings"
	"time"
)

// IAM users: what a component with long-lived keys (the management
// operator, the CLI) runs as. Their access keys resolve to the user, whose
// inline and attached policies decide each call (iam_eval.go).

// User is an IAM user.
type User struct {
	Name             string            `json:"name"`
	Path             string            `json:"path"`
	ARN              string            `json:"arn"`
	ID               string            `json:"id"` // AIDA…
	CreatedAt        time.Time         `json:"createdAt"`
	Tags             map[string]string `json:"tags,omitempty"`
	InlinePolicies   map[string]string `json:"inlinePolicies,omitempty"`
	AttachedPolicies []string          `json:"attachedPolicies,omitempty"`
	// AccessKeys are the user's key IDs, in creation order (at most two).
	AccessKeys []string `json:"accessKeys,omitempty"`
}

// userKeyPrefix marks long-lived keys, as AWS's AKIA prefix does.
const userKeyPrefix = "AKIA"

// User returns the user with the given name, ignoring case.
func (s *IAMState) User(name string) *User {
	if u := s.Users[name]; u != nil {
		return u
	}
	for n, u := range s.Users {
		if strings.EqualFold(n, name) {
			return u
		}
	}
	return nil
}

func init() {
	for action, h := range map[string]Handler{
		"CreateUser":               createUser,
		"GetUser":                  getUser,
		"DeleteUser":               deleteUser,
		"PutUserPolicy":            forUser(putInlinePolicy),
		"DeleteUserPolicy":         forUser(deleteInlinePolicy),
		"ListUserPolicies":         forUser(listInlinePolicies),
		"AttachUserPolicy":         forUser(attachManagedPolicy),
		"DetachUserPolicy":         forUser(detachManagedPolicy),
		"ListAttachedUserPolicies": forUser(listAttachedPolicies),
		"CreateAccessKey":          createAccessKey,
		"DeleteAccessKey":          deleteAccessKey,
		"ListAccessKeys":           listAccessKeys,
	} {
		registerQuery("iam", action, h)
	}
}

type iamUserXML struct {
	Path       string              `xml:"Path"`
	UserName   string              `xml:"UserName"`
	UserID     string              `xml:"UserId"`
	Arn        string              `xml:"Arn"`
	CreateDate string              `xml:"CreateDate"`
	Tags       *members[iamTagXML] `xml:"Tags,omitempty"`
}

func (u *User) wire() iamUserXML {
	return iamUserXML{Path: u.Path, UserName: u.Name, UserID: u.ID, Arn: u.ARN, CreateDate: iamTime(u.CreatedAt), Tags: tagMembers(u.Tags)}
}

type userResult struct {
	User iamUserXML `xml:"User"`
}

func createUser(call *Call) (any, *APIError) {
	name, err := iamName(call, "UserName", "userName", 64)
	if err != nil {
		return nil, err
	}
	path, err := iamPath(call)
	if err != nil {
		return nil, err
	}
	iam := call.Account.IAM
	if iam.User(name) != nil {
		return nil, entityAlreadyExists("User with name %s already exists.", name)
	}
	tags, err := mergeIAMTags(call, nil, "User")
	if err != nil {
		return nil, err
	}
	u := &User{Name: name, Path: path, ARN: "arn:aws:iam::" + call.Account.ID + ":user" + path + name,
		ID: newIAMID("AIDA"), CreatedAt: call.Now, Tags: tags}
	iam.Users[name] = u
	return userResult{User: u.wire()}, nil
}

func noSuchUser(name string) *APIError {
	return noSuchEntity("The user with name %s cannot be found.", name)
}

// userParam returns the user named by UserName; GetUser without one is
// the caller itself.
func userParam(call *Call) (*User, *APIError) {
	name := call.Str("UserName")
	if name == "" && call.Action == "GetUser" && call.Principal.UserARN != "" {
		name = lastSegment(call.Principal.UserARN)
	}
	if name == "" {
		return nil, errMissingParameter("UserName")
	}
	u := call.Account.IAM.User(name)
	if u == nil {
		return nil, noSuchUser(name)
	}
	return u, nil
}

func getUser(call *Call) (any, *APIError) {
	u, err := userParam(call)
	if err != nil {
		return nil, err
	}
	return userResult{User: u.wire()}, nil
}

func deleteUser(call *Call) (any, *APIError) {
	u, err := userParam(call)
	if err != nil {
		return nil, err
	}
	switch {
	case len(u.InlinePolicies) > 0:
		return nil, deleteConflict("Cannot delete entity, must delete policies first.")
	case len(u.AttachedPolicies) > 0:
		return nil, deleteConflict("Cannot delete entity, must detach all policies first.")
	case len(u.AccessKeys) > 0:
		return nil, deleteConflict("Cannot delete entity, must delete access keys first.")
	}
	delete(call.Account.IAM.Users, u.Name)
	return nil, nil
}

type iamAccessKeyXML struct {
	UserName        string `xml:"UserName"`
	AccessKeyID     string `xml:"AccessKeyId"`
	Status          string `xml:"Status"`
	SecretAccessKey string `xml:"SecretAccessKey,omitempty"`
	CreateDate      string `xml:"CreateDate"`
}

type createAccessKeyResult struct {
	AccessKey iamAccessKeyXML `xml:"AccessKey"`
}

func createAccessKey(call *Call) (any, *APIError) {
	u, err := userParam(call)
	if err != nil {
		return nil, err
	}
	if len(u.AccessKeys) >= 2 {
		return nil, iamLimitExceeded("Cannot exceed quota for AccessKeysPerUser: 2")
	}
	id := userKeyPrefix + strings.ToUpper(randomHex(8))
	u.AccessKeys = append(u.AccessKeys, id)
	call.Cloud.keys[id] = Principal{Account: call.Account.ID, ARN: u.ARN, AccessKeyID: id, UserARN: u.ARN, UserID: u.ID}
	return createAccessKeyResult{AccessKey: iamAccessKeyXML{UserName: u.Name, AccessKeyID: id, Status: "Active",
		SecretAccessKey: randomHex(20), CreateDate: iamTime(call.Now)}}, nil
}

func deleteAccessKey(call *Call) (any, *APIError) {
	u, err := userParam(call)
	if err != nil {
		return nil, err
	}
	id, err := iamRequired(call, "AccessKeyId", "accessKeyId")
	if err != nil {
		return nil, err
	}
	if !contains(u.AccessKeys, id) {
		return nil, noSuchEntity("The Access Key with id %s cannot be found.", id)
	}
	u.AccessKeys = without(u.AccessKeys, []string{id})
	delete(call.Cloud.keys, id)
	return nil, nil
}

type listAccessKeysResult struct {
	AccessKeyMetadata members[iamAccessKeyXML] `xml:"AccessKeyMetadata"`
	IsTruncated       bool                     `xml:"IsTruncated"`
}

func listAccessKeys(call *Call) (any, *APIError) {
	u, err := userParam(call)
	if err != nil {
		return nil, err
	}
	var out listAccessKeysResult
	keys := append([]string(nil), u.AccessKeys...)
	sort.Strings(keys)
	for _, id := range keys {
		out.AccessKeyMetadata.Items = append(out.AccessKeyMetadata.Items, iamAccessKeyXML{UserName: u.Name, AccessKeyID: id, Status: "Active", CreateDate: iamTime(u.CreatedAt)})
	}
	return out, nil
}
