{{/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */}}
{{/* The objects' name: the release's, with "cgsched" unless it says so already. */}}
{{- define "cgsched.fullname" -}}
{{- if contains "cgsched" .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-cgsched" .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* The labels the DaemonSet selects its pods by, and the Service its endpoints. */}}
{{- define "cgsched.selectorLabels" -}}
app.kubernetes.io/name: cgsched
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "cgsched.labels" -}}
{{ include "cgsched.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "cgsched.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}
