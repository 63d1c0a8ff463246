package aws

import (
	"bytes"
	"encoding/xml"
	"net/http"
)

// protocol is one AWS wire protocol: how a request names its operation and
// how results and errors are encoded.
type protocol interface {
	resolve(call *Call) (Handler, *APIError)
	writeResult(w http.ResponseWriter, call *Call, result any)
	writeError(w http.ResponseWriter, call *Call, err *APIError)
}

var protocols = map[string]protocol{
	"ec2":                  ec2Query{},
	"elasticloadbalancing": awsQuery{namespace: "http://elasticloadbalancing.amazonaws.com/doc/2015-12-01/"},
	"iam":                  awsQuery{namespace: "https://iam.amazonaws.com/doc/2010-05-08/"},
	"sts":                  awsQuery{namespace: "https://sts.amazonaws.com/doc/2011-06-15/"},
	"route53":              restXML{namespace: route53Namespace},
}

const route53Namespace = "https://route53.amazonaws.com/doc/2013-04-01/"

// queryHandlers holds the Query-protocol operations: service → Action → handler.
// Each service file registers its own from init.
var queryHandlers = map[string]map[string]Handler{}

func registerQuery(service, action string, h Handler) {
	if queryHandlers[service] == nil {
		queryHandlers[service] = map[string]Handler{}
	}
	if _, dup := queryHandlers[service][action]; dup {
		panic("cloudsim: " + service + ":" + action + " registered twice")
	}
	queryHandlers[service][action] = h
}

func resolveQuery(call *Call) (Handler, *APIError) {
	if call.Action == "" {
		return nil, errBadRequest("MissingAction", "The request must contain the parameter Action")
	}
	h, ok := queryHandlers[call.Service][call.Action]
	if !ok {
		return nil, errBadRequest("InvalidAction", "The action %s is not valid for this web service.", call.Action)
	}
	return h, nil
}

// ec2Query is EC2's dialect of the Query protocol.
type ec2Query struct{}

func (ec2Query) resolve(call *Call) (Handler, *APIError) { return resolveQuery(call) }

func (ec2Query) writeResult(w http.ResponseWriter, call *Call, result any) {
	var buf bytes.Buffer
	buf.WriteString(xml.Header)
	buf.WriteString(`<` + call.Action + `Response xmlns="http://ec2.amazonaws.com/doc/2016-11-15/">`)
	buf.WriteString(`<requestId>` + call.RequestID + `</requestId>`)
	if err := writeInner(&buf, result); err != nil {
		writeEncodingFailure(w, err)
		return
	}
	buf.WriteString(`</` + call.Action + `Response>`)
	writeXML(w, call, http.StatusOK, buf.Bytes())
}

func (ec2Query) writeError(w http.ResponseWriter, call *Call, e *APIError) {
	var buf bytes.Buffer
	buf.WriteString(xml.Header)
	buf.WriteString(`<Response><Errors><Error><Code>`)
	xml.EscapeText(&buf, []byte(e.Code))
	buf.WriteString(`</Code><Message>`)
	xml.EscapeText(&buf, []byte(e.Message))
	buf.WriteString(`</Message></Error></Errors><RequestID>` + call.RequestID + `</RequestID></Response>`)
	writeXML(w, call, e.Status, buf.Bytes())
}

// awsQuery is the Query protocol of ELBv2, IAM and STS.
type awsQuery struct{ namespace string }

func (awsQuery) resolve(call *Call) (Handler, *APIError) { return resolveQuery(call) }

func (q awsQuery) writeResult(w http.ResponseWriter, call *Call, result any) {
	var buf bytes.Buffer
	buf.WriteString(xml.Header)
	buf.WriteString(`<` + call.Action + `Response xmlns="` + q.namespace + `">`)
	buf.WriteString(`<` + call.Action + `Result>`)
	if err := writeInner(&buf, result); err != nil {
		writeEncodingFailure(w, err)
		return
	}
	buf.WriteString(`</` + call.Action + `Result>`)
	buf.WriteString(`<ResponseMetadata><RequestId>` + call.RequestID + `</RequestId></ResponseMetadata>`)
	buf.WriteString(`</` + call.Action + `Response>`)
	writeXML(w, call, http.StatusOK, buf.Bytes())
}

func (q awsQuery) writeError(w http.ResponseWriter, call *Call, e *APIError) {
	writeXML(w, call, e.Status, errorResponse(q.namespace, call, e))
}

func writeQueryError(w http.ResponseWriter, call *Call, e *APIError) {
	writeXML(w, call, e.Status, errorResponse("", call, e))
}

// errorResponse is the ErrorResponse envelope the Query services and Route 53 share.
func errorResponse(namespace string, call *Call, e *APIError) []byte {
	var buf bytes.Buffer
	buf.WriteString(xml.Header)
	if namespace != "" {
		buf.WriteString(`<ErrorResponse xmlns="` + namespace + `">`)
	} else {
		buf.WriteString(`<ErrorResponse>`)
	}
	errType := "Sender"
	if e.Status >= 500 {
		errType = "Receiver"
	}
	buf.WriteString(`<Error><Type>` + errType + `</Type><Code>`)
	xml.EscapeText(&buf, []byte(e.Code))
	buf.WriteString(`</Code><Message>`)
	xml.EscapeText(&buf, []byte(e.Message))
	buf.WriteString(`</Message></Error><RequestId>` + call.RequestID + `</RequestId></ErrorResponse>`)
	return buf.Bytes()
}

// restXML is Route 53's protocol: the operation is the method and path, and
// each handler returns a *RestResult with a complete XML document.
type restXML struct{ namespace string }

// RestResult is a REST-XML answer: status (200 when zero), extra headers and
// a body that marshals to the whole document (its XMLName carries the xmlns).
type RestResult struct {
	Status int
	Header http.Header
	Body   any
}

func (restXML) resolve(call *Call) (Handler, *APIError) { return resolveRoute53(call) }

func (restXML) writeResult(w http.ResponseWriter, call *Call, result any) {
	rr, ok := result.(*RestResult)
	if !ok {
		writeEncodingFailure(w, errNotRestResult)
		return
	}
	var buf bytes.Buffer
	if rr.Body != nil {
		buf.WriteString(xml.Header)
		if err := xml.NewEncoder(&buf).Encode(rr.Body); err != nil {
			writeEncodingFailure(w, err)
			return
		}
	}
	for k, vs := range rr.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	status := rr.Status
	if status == 0 {
		status = http.StatusOK
	}
	writeXML(w, call, status, buf.Bytes())
}

func (r restXML) writeError(w http.ResponseWriter, call *Call, e *APIError) {
	if len(e.Messages) == 0 {
		writeXML(w, call, e.Status, errorResponse(r.namespace, call, e))
		return
	}
	// Route 53 reports a rejected change batch as a list of messages.
	var buf bytes.Buffer
	buf.WriteString(xml.Header)
	buf.WriteString(`<InvalidChangeBatch xmlns="` + r.namespace + `"><Messages>`)
	for _, m := range e.Messages {
		buf.WriteString(`<Message>`)
		xml.EscapeText(&buf, []byte(m))
		buf.WriteString(`</Message>`)
	}
	buf.WriteString(`</Messages><RequestId>` + call.RequestID + `</RequestId></InvalidChangeBatch>`)
	writeXML(w, call, e.Status, buf.Bytes())
}

type encodingError string

func (e encodingError) Error() string { return string(e) }

const errNotRestResult = encodingError("route53 handler did not return a *RestResult")

func writeXML(w http.ResponseWriter, call *Call, status int, body []byte) {
	w.Header().Set("Content-Type", "text/xml")
	w.Header().Set("x-amzn-RequestId", call.RequestID)
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func writeEncodingFailure(w http.ResponseWriter, err error) {
	http.Error(w, "cloudsim could not encode its answer: "+err.Error(), http.StatusInternalServerError)
}

// writeInner encodes v's fields without an enclosing element, so that a
// handler's result struct lists exactly the children of the result element.
func writeInner(buf *bytes.Buffer, v any) error {
	if v == nil {
		return nil
	}
	var tmp bytes.Buffer
	enc := xml.NewEncoder(&tmp)
	if err := enc.EncodeElement(v, xml.StartElement{Name: xml.Name{Local: "r"}}); err != nil {
		return err
	}
	inner := bytes.TrimSuffix(bytes.TrimPrefix(tmp.Bytes(), []byte("<r>")), []byte("</r>"))
	buf.Write(inner)
	return nil
}
