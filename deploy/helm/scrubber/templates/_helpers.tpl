{{/* Chart name, possibly overridden. */}}
{{- define "scrubber.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Release-qualified name; mode suffixes (-kafka, -smtp) are added to it, so keep it short. */}}
{{- define "scrubber.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 52 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 52 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 52 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "scrubber.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/name: {{ include "scrubber.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* Selector labels of one mode's pods; call with (dict "root" $ "mode" "kafka"). */}}
{{- define "scrubber.selectorLabels" -}}
app.kubernetes.io/name: {{ include "scrubber.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .mode }}
{{- end -}}

{{- define "scrubber.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "scrubber.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "scrubber.secretName" -}}
{{- default (include "scrubber.fullname" .) .Values.secrets.existingSecret -}}
{{- end -}}

{{/* The modes that are on, in a fixed order. */}}
{{- define "scrubber.modes" -}}
{{- $modes := list -}}
{{- if .Values.kafka.enabled }}{{ $modes = append $modes "kafka" }}{{ end -}}
{{- if .Values.smtp.enabled }}{{ $modes = append $modes "smtp" }}{{ end -}}
{{- if not $modes -}}
{{- fail "turn on at least one mode: kafka.enabled and/or smtp.enabled" -}}
{{- end -}}
{{- join " " $modes -}}
{{- end -}}

{{/* Which secret keys the enabled features need, as a list of names. */}}
{{- define "scrubber.secretKeys" -}}
{{- $keys := list -}}
{{- if .Values.hmac.enabled }}{{ $keys = append $keys "hmac-key" }}{{ end -}}
{{- if and .Values.kafka.enabled .Values.kafka.sasl.enabled }}{{ $keys = append $keys "kafka-sasl-password" }}{{ end -}}
{{- if and .Values.smtp.enabled .Values.smtp.upstream.username }}{{ $keys = append $keys "smtp-upstream-password" }}{{ end -}}
{{- if and .Values.smtp.enabled .Values.smtp.auth.required }}{{ $keys = append $keys "smtp-auth-users" }}{{ end -}}
{{- join " " $keys -}}
{{- end -}}

{{/*
The scrubber config file of one mode (the YAML `scrubber run --config` reads).
Call with (dict "root" $ "mode" "kafka"|"smtp").
*/}}
{{- define "scrubber.config" -}}
{{- $v := .root.Values -}}
{{- $cfg := deepCopy $v.policy -}}
{{- $_ := set $cfg "level" (int $v.level) -}}
{{- if $v.hmac.enabled }}{{ $_ := set $cfg "hmac_key_env" "SCRUBBER_HMAC_KEY" }}{{ end -}}
{{- $_ := set $cfg "admin" (dict "listen" (printf "0.0.0.0:%d" (int $v.admin.port)) "playground" $v.admin.playground) -}}
{{- $_ := set $cfg "logging" $v.logging -}}
{{- if $v.limits }}{{ $_ := set $cfg "limits" $v.limits }}{{ end -}}
{{- $_ := set $cfg "workers" (int $v.workers) -}}
{{- if eq .mode "kafka" -}}
{{- $k := deepCopy $v.kafka.extraConfig -}}
{{- $_ := set $k "bootstrap_servers" $v.kafka.bootstrapServers -}}
{{- $_ := set $k "group_id" $v.kafka.groupId -}}
{{- $_ := set $k "quarantine_topic" $v.kafka.quarantineTopic -}}
{{- $_ := set $k "routes" $v.kafka.routes -}}
{{- if not (hasKey $k "scrub_processes") }}{{ $_ := set $k "scrub_processes" (int $v.kafka.scrubProcesses) }}{{ end -}}
{{- if $v.kafka.sasl.enabled -}}
{{- $sec := deepCopy (default (dict) $k.security) -}}
{{- $_ := set $sec "security_protocol" $v.kafka.sasl.securityProtocol -}}
{{- $_ := set $sec "sasl_mechanism" $v.kafka.sasl.mechanism -}}
{{- $_ := set $sec "sasl_plain_username" (required "kafka.sasl.username is required when kafka.sasl.enabled" $v.kafka.sasl.username) -}}
{{- $_ := set $sec "sasl_plain_password_env" "KAFKA_SASL_PASSWORD" -}}
{{- $_ := set $k "security" $sec -}}
{{- end -}}
{{- $_ := set $cfg "kafka" $k -}}
{{- else -}}
{{- $s := deepCopy $v.smtp.extraConfig -}}
{{- $_ := set $s "listen" (printf "0.0.0.0:%d" (int $v.smtp.containerPort)) -}}
{{- $_ := set $s "hostname" $v.smtp.hostname -}}
{{- $up := dict "host" (required "smtp.upstream.host is required when smtp.enabled" $v.smtp.upstream.host) "port" (int $v.smtp.upstream.port) "tls" $v.smtp.upstream.tls "timeout" $v.smtp.upstream.timeout "verify" $v.smtp.upstream.verify -}}
{{- if $v.smtp.upstream.username -}}
{{- $_ := set $up "username" $v.smtp.upstream.username -}}
{{- $_ := set $up "password_env" "SMTP_UPSTREAM_PASSWORD" -}}
{{- end -}}
{{- $_ := set $s "upstream" $up -}}
{{- $_ := set $s "allowed_networks" $v.smtp.allowedNetworks -}}
{{- if $v.smtp.tls.secretName -}}
{{- $_ := set $s "tls" (dict "cert" "/etc/scrubber/tls/tls.crt" "key" "/etc/scrubber/tls/tls.key") -}}
{{- end -}}
{{- if $v.smtp.auth.required -}}
{{- if not $v.smtp.tls.secretName }}{{ fail "smtp.auth.required needs smtp.tls.secretName (AUTH is only offered over TLS)" }}{{ end -}}
{{- $_ := set $s "auth" (dict "required" true "users_file" "/etc/scrubber/secrets/smtp-auth-users") -}}
{{- end -}}
{{- $_ := set $cfg "smtp" $s -}}
{{- end -}}
{{- toYaml $cfg -}}
{{- end -}}

{{/* PromQL label matchers for this release's scrubber targets (Prometheus Operator labels). */}}
{{- define "scrubber.promSelector" -}}
namespace="{{ .Release.Namespace }}",job=~"{{ include "scrubber.fullname" . }}-(kafka|smtp)-metrics"
{{- end -}}
