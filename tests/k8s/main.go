// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause

// k8scheck validates Kubernetes objects rendered by helm template (YAML
// documents on standard input) as an API server would before storing them:
// each decoded strictly into its kind's type from k8s.io/api and the
// Prometheus operator's API (the types the API's OpenAPI schema is generated
// from: an unknown or duplicated field, a wrong type, an unknown kind are
// refused), then the server's validation rules that matter for these objects
// (names, labels, a DaemonSet's selector against its pod template, ports and
// volumes referred to by name, a Service's and a ServiceMonitor's ports).
// Every error is printed; exit status 1 if any, 2 for unreadable input.
// With -json, each object is written as one line of JSON for jq.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"strings"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

type checker struct {
	errs     []string
	daemons  []*appsv1.DaemonSet
	services []*corev1.Service
	monitors []*monitoringv1.ServiceMonitor
	accounts map[string]bool
}

func (c *checker) fail(what string, format string, args ...any) {
	c.errs = append(c.errs, what+": "+fmt.Sprintf(format, args...))
}

func (c *checker) list(what string, l field.ErrorList) {
	for _, e := range l {
		c.fail(what, "%s", e.Error())
	}
}

// The rules every object's metadata meets: a name as name says (nil: none
// needed, a pod template's), labels and annotations as the server accepts them.
func (c *checker) meta(what string, m *metav1.ObjectMeta, name func(string) []string) {
	if name != nil && m.Name == "" {
		c.fail(what, "no metadata.name")
	}
	if name != nil && m.Name != "" {
		for _, msg := range name(m.Name) {
			c.fail(what, "metadata.name %q: %s", m.Name, msg)
		}
	}
	if m.Namespace != "" {
		for _, msg := range validation.IsDNS1123Label(m.Namespace) {
			c.fail(what, "metadata.namespace %q: %s", m.Namespace, msg)
		}
	}
	c.list(what, metavalidation.ValidateLabels(m.Labels, field.NewPath("metadata", "labels")))
	for k := range m.Annotations {
		for _, msg := range validation.IsQualifiedName(strings.ToLower(k)) {
			c.fail(what, "annotation %q: %s", k, msg)
		}
	}
}

func (c *checker) podSpec(what string, s *corev1.PodSpec) {
	if len(s.Containers) == 0 {
		c.fail(what, "no containers")
	}
	if s.RestartPolicy != "" && s.RestartPolicy != corev1.RestartPolicyAlways {
		c.fail(what, "restartPolicy %s: a DaemonSet's pods must restart Always", s.RestartPolicy)
	}
	vols := map[string]bool{}
	for _, v := range s.Volumes {
		for _, msg := range validation.IsDNS1123Label(v.Name) {
			c.fail(what, "volume %q: %s", v.Name, msg)
		}
		if vols[v.Name] {
			c.fail(what, "volume %q twice", v.Name)
		}
		vols[v.Name] = true
		if v.HostPath != nil && !path.IsAbs(v.HostPath.Path) {
			c.fail(what, "volume %q: hostPath %q is not absolute", v.Name, v.HostPath.Path)
		}
	}
	if s.ServiceAccountName != "" {
		for _, msg := range validation.IsDNS1123Subdomain(s.ServiceAccountName) {
			c.fail(what, "serviceAccountName %q: %s", s.ServiceAccountName, msg)
		}
	}
	for _, k := range s.Containers {
		w := what + " container " + k.Name
		for _, msg := range validation.IsDNS1123Label(k.Name) {
			c.fail(w, "name: %s", msg)
		}
		if k.Image == "" {
			c.fail(w, "no image")
		}
		ports := map[string]int32{}
		for _, p := range k.Ports {
			if p.Name != "" {
				for _, msg := range validation.IsValidPortName(p.Name) {
					c.fail(w, "port name %q: %s", p.Name, msg)
				}
				ports[p.Name] = p.ContainerPort
			}
			for _, msg := range validation.IsValidPortNum(int(p.ContainerPort)) {
				c.fail(w, "containerPort %d: %s", p.ContainerPort, msg)
			}
		}
		for _, pr := range []struct {
			name string
			p    *corev1.Probe
		}{{"livenessProbe", k.LivenessProbe}, {"readinessProbe", k.ReadinessProbe}, {"startupProbe", k.StartupProbe}} {
			if pr.p == nil || pr.p.HTTPGet == nil {
				continue
			}
			if port := pr.p.HTTPGet.Port; port.StrVal != "" {
				if _, ok := ports[port.StrVal]; !ok {
					c.fail(w, "%s names port %q, which the container does not have", pr.name, port.StrVal)
				}
			}
			if !strings.HasPrefix(pr.p.HTTPGet.Path, "/") {
				c.fail(w, "%s path %q does not start with /", pr.name, pr.p.HTTPGet.Path)
			}
		}
		for _, m := range k.VolumeMounts {
			if !vols[m.Name] {
				c.fail(w, "mounts volume %q, which the pod does not have", m.Name)
			}
			if !path.IsAbs(m.MountPath) {
				c.fail(w, "mountPath %q is not absolute", m.MountPath)
			}
		}
		for _, e := range k.Env {
			for _, msg := range validation.IsEnvVarName(e.Name) {
				c.fail(w, "env %q: %s", e.Name, msg)
			}
		}
		if sc := k.SecurityContext; sc != nil && sc.Privileged != nil && *sc.Privileged &&
			sc.AllowPrivilegeEscalation != nil && !*sc.AllowPrivilegeEscalation {
			c.fail(w, "privileged with allowPrivilegeEscalation false: the server refuses that")
		}
	}
}

func (c *checker) object(obj runtime.Object) {
	switch o := obj.(type) {
	case *appsv1.DaemonSet:
		what := "DaemonSet " + o.Name
		c.meta(what, &o.ObjectMeta, validation.IsDNS1123Subdomain)
		c.meta(what+" pod template", &o.Spec.Template.ObjectMeta, nil)
		sel, err := metav1.LabelSelectorAsSelector(o.Spec.Selector)
		switch {
		case o.Spec.Selector == nil || sel.Empty():
			c.fail(what, "no selector")
		case err != nil:
			c.fail(what, "selector: %v", err)
		case !sel.Matches(labels.Set(o.Spec.Template.Labels)):
			c.fail(what, "selector %s does not match the pod template's labels %v", sel, o.Spec.Template.Labels)
		}
		c.podSpec(what, &o.Spec.Template.Spec)
		c.daemons = append(c.daemons, o)
	case *corev1.Service:
		what := "Service " + o.Name
		c.meta(what, &o.ObjectMeta, validation.IsDNS1035Label)
		if len(o.Spec.Ports) == 0 {
			c.fail(what, "no ports")
		}
		for _, p := range o.Spec.Ports {
			for _, msg := range validation.IsValidPortNum(int(p.Port)) {
				c.fail(what, "port %d: %s", p.Port, msg)
			}
		}
		c.services = append(c.services, o)
	case *corev1.Namespace:
		c.meta("Namespace "+o.Name, &o.ObjectMeta, validation.IsDNS1123Label)
	case *corev1.ServiceAccount:
		c.meta("ServiceAccount "+o.Name, &o.ObjectMeta, validation.IsDNS1123Subdomain)
		c.accounts[o.Name] = true
	case *monitoringv1.ServiceMonitor:
		what := "ServiceMonitor " + o.Name
		c.meta(what, &o.ObjectMeta, validation.IsDNS1123Subdomain)
		if len(o.Spec.Endpoints) == 0 {
			c.fail(what, "no endpoints")
		}
		c.monitors = append(c.monitors, o)
	default:
		c.fail(fmt.Sprintf("%T", obj), "a kind this check does not know: add its rules")
	}
}

// What one object says of another: the pods' ports a Service targets, the Service a ServiceMonitor selects.
func (c *checker) across() {
	for _, d := range c.daemons {
		if sa := d.Spec.Template.Spec.ServiceAccountName; sa != "" && !c.accounts[sa] {
			c.fail("DaemonSet "+d.Name, "service account %q is not among the objects", sa)
		}
	}
	for _, s := range c.services {
		var pods []*appsv1.DaemonSet
		for _, d := range c.daemons {
			if len(s.Spec.Selector) > 0 && labels.SelectorFromSet(s.Spec.Selector).Matches(labels.Set(d.Spec.Template.Labels)) {
				pods = append(pods, d)
			}
		}
		if len(pods) == 0 {
			c.fail("Service "+s.Name, "selects no pods of these objects")
		}
		for _, p := range s.Spec.Ports {
			if p.TargetPort.StrVal == "" {
				continue
			}
			for _, d := range pods {
				found := false
				for _, k := range d.Spec.Template.Spec.Containers {
					for _, cp := range k.Ports {
						found = found || cp.Name == p.TargetPort.StrVal
					}
				}
				if !found {
					c.fail("Service "+s.Name, "targetPort %q is no port of DaemonSet %s's containers", p.TargetPort.StrVal, d.Name)
				}
			}
		}
	}
	for _, m := range c.monitors {
		sel, err := metav1.LabelSelectorAsSelector(&m.Spec.Selector)
		if err != nil {
			c.fail("ServiceMonitor "+m.Name, "selector: %v", err)
			continue
		}
		var svcs []*corev1.Service
		for _, s := range c.services {
			if sel.Matches(labels.Set(s.Labels)) {
				svcs = append(svcs, s)
			}
		}
		if len(svcs) == 0 {
			c.fail("ServiceMonitor "+m.Name, "selects no Service of these objects")
		}
		for _, e := range m.Spec.Endpoints {
			for _, s := range svcs {
				found := false
				for _, p := range s.Spec.Ports {
					found = found || p.Name == e.Port
				}
				if !found {
					c.fail("ServiceMonitor "+m.Name, "endpoint port %q is no port of Service %s", e.Port, s.Name)
				}
			}
		}
	}
}

func main() {
	asJSON := flag.Bool("json", false, "write each object as a line of JSON")
	flag.Parse()
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, appsv1.AddToScheme, monitoringv1.AddToScheme} {
		if err := add(scheme); err != nil {
			fmt.Fprintln(os.Stderr, "k8scheck:", err)
			os.Exit(2)
		}
	}
	decoder := serializer.NewCodecFactory(scheme, serializer.EnableStrict).UniversalDeserializer()
	c := &checker{accounts: map[string]bool{}}
	r := utilyaml.NewYAMLReader(bufio.NewReader(os.Stdin))
	n := 0
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "k8scheck: reading the documents:", err)
			os.Exit(2)
		}
		if empty(doc) {
			continue
		}
		n++
		obj, gvk, err := decoder.Decode(doc, nil, nil)
		if err != nil {
			c.fail(fmt.Sprintf("document %d", n), "%v", err)
			continue
		}
		c.object(obj)
		if *asJSON {
			j, err := yamlToJSON(doc)
			if err != nil {
				c.fail(gvk.Kind, "%v", err)
				continue
			}
			fmt.Println(string(j))
		}
	}
	if n == 0 {
		c.fail("input", "no objects")
	}
	c.across()
	for _, e := range c.errs {
		fmt.Fprintln(os.Stderr, "k8scheck:", e)
	}
	if len(c.errs) > 0 {
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "k8scheck: %d objects valid\n", n)
}

// A document of comments and blank lines only (helm leaves them where a template renders nothing).
func empty(doc []byte) bool {
	for _, l := range bytes.Split(doc, []byte("\n")) {
		t := bytes.TrimSpace(l)
		if len(t) > 0 && t[0] != '#' && string(t) != "---" {
			return false
		}
	}
	return true
}

func yamlToJSON(doc []byte) ([]byte, error) {
	var v map[string]any
	if err := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(doc), 4096).Decode(&v); err != nil {
		return nil, err
	}
	return json.Marshal(v)
}
