package aws

import (
	"regexp"
	"strings"
	"testing"

	"github.com/aws/smithy-go"
)

var leaky = regexp.MustCompile(`(?i)(request[ -_]?id|[0-9a-f]{8}-[0-9a-f]{4}-|StatusCode|https response error)`)

func TestErrorMessage(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want []string
	}{
		{"nil", nil, nil},
		{"throttled", apiError(400, "RequestLimitExceeded", smithy.FaultClient), []string{"EC2 DescribeVpcEndpoints failed with RequestLimitExceeded", "throttled"}},
		{"access denied", apiError(403, "UnauthorizedOperation", smithy.FaultClient), []string{"UnauthorizedOperation", "permission"}},
		{"access denied naming the action first", &smithy.OperationError{ServiceID: "EC2", OperationName: "CreateInternetGateway", Err: &smithy.GenericAPIError{
			Code: "UnauthorizedOperation", Message: "You are not authorized to perform this operation. User: arn:aws:iam::222222222222:user/" + strings.Repeat("a", 64) +
				" is not authorized to perform: ec2:CreateInternetGateway on resource: arn:aws:ec2:us-east-1:222222222222:internet-gateway/* because no identity-based policy allows the ec2:CreateInternetGateway action"}},
			[]string{"UnauthorizedOperation: the identity lacks ec2:CreateInternetGateway: grant it"}},
		{"server", apiError(500, "InternalError", smithy.FaultServer), []string{"InternalError", "retrying soon"}},
		{"message with request id scrubbed", &smithy.OperationError{ServiceID: "EC2", OperationName: "CreateVpcEndpoint", Err: &smithy.GenericAPIError{
			Code: "InvalidParameter", Message: "bad subnet, RequestID: 0a1b2c3d-0000-4000-8000-0123456789ab, https response error StatusCode: 400"}},
			[]string{"InvalidParameter", "AWS says: bad subnet"}},
		{"long message bounded", &smithy.GenericAPIError{Code: "InvalidParameter", Message: strings.Repeat("x ", 500)}, []string{"…"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ErrorMessage(tt.err)
			if tt.err == nil {
				if got != "" {
					t.Fatalf("ErrorMessage(nil) = %q", got)
				}
				return
			}
			if len(got) > MaxMessageLength {
				t.Errorf("message is %d bytes, more than %d", len(got), MaxMessageLength)
			}
			if leaky.MatchString(got) {
				t.Errorf("message %q leaks request IDs or HTTP text", got)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("message %q lacks %q", got, w)
				}
			}
		})
	}
}
