{{/* Labels every object of the release carries. */}}
{{- define "fabvote.labels" -}}
app.kubernetes.io/part-of: fabvote
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/instance: {{ .Release.Name }}
helm.sh/chart: {{ .Chart.Name }}-{{ .Chart.Version }}
fabvote.org/org: {{ .Values.org.name | quote }}
{{- end -}}

{{/* The name of a node's objects: release, then node ("ea-peer0"). */}}
{{- define "fabvote.node" -}}
{{- printf "%s-%s" .root.Release.Name .name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The port of a host:port, required. */}}
{{- define "fabvote.port" -}}
{{- $parts := splitList ":" . -}}
{{- if ne (len $parts) 2 -}}{{- fail (printf "%q is not host:port" .) -}}{{- end -}}
{{- last $parts -}}
{{- end -}}

{{/* Fabric's MSP config.yaml: NodeOUs against the mounted CA certificate. */}}
{{- define "fabvote.mspConfig" -}}
NodeOUs:
  Enable: true
  ClientOUIdentifier: {Certificate: cacerts/ca.pem, OrganizationalUnitIdentifier: client}
  PeerOUIdentifier: {Certificate: cacerts/ca.pem, OrganizationalUnitIdentifier: peer}
  AdminOUIdentifier: {Certificate: cacerts/ca.pem, OrganizationalUnitIdentifier: admin}
  OrdererOUIdentifier: {Certificate: cacerts/ca.pem, OrganizationalUnitIdentifier: orderer}
{{- end -}}

{{/* A projected volume holding a node's MSP directory: the keys from its
Secret, config.yaml from its ConfigMap. Key files are 0440: the pod's
fsGroup owns them, so the non-root node user reads them and no one else. */}}
{{- define "fabvote.mspVolume" -}}
- name: msp
  projected:
    sources:
      - secret:
          name: {{ .secret }}
          items:
            - {key: cert.pem, path: signcerts/cert.pem}
            - {key: key.pem, path: keystore/key.pem, mode: 0440}
            - {key: ca.pem, path: cacerts/ca.pem}
            - {key: tlsca.pem, path: tlscacerts/tlsca.pem}
      - configMap:
          name: {{ .config }}
          items:
            - {key: msp-config.yaml, path: config.yaml}
{{- end -}}

{{/* Pod security: a non-root user whose group (fsGroup) owns the mounted
keys; no service account token (no node talks to the Kubernetes API). */}}
{{- define "fabvote.podSecurity" -}}
automountServiceAccountToken: false
securityContext:
  runAsNonRoot: true
  runAsUser: 10001
  runAsGroup: 10001
  fsGroup: 10001
  fsGroupChangePolicy: OnRootMismatch
  seccompProfile: {type: RuntimeDefault}
{{- end -}}

{{/* Container security: the "restricted" Pod Security Standard. */}}
{{- define "fabvote.containerSecurity" -}}
securityContext:
  allowPrivilegeEscalation: false
  capabilities: {drop: [ALL]}
{{- end -}}

{{/* The in-cluster Service of a node: headless (the StatefulSet's per-pod
DNS), with the ports that must not leave the cluster. .ports: list of
name/port pairs. */}}
{{- define "fabvote.internalService" -}}
apiVersion: v1
kind: Service
metadata:
  name: {{ .name }}-internal
  labels: {{- include "fabvote.labels" .root | nindent 4 }}
spec:
  clusterIP: None
  selector:
    app.kubernetes.io/instance: {{ .root.Release.Name }}
    app.kubernetes.io/name: {{ .name }}
  ports:
    {{- range .ports }}
    - {name: {{ .name }}, port: {{ .port }}, targetPort: {{ .name }}}
    {{- end }}
{{- end -}}

{{/* A NetworkPolicy for a node: its public ports from anywhere, its
operations port only from the monitoring namespaces. */}}
{{- define "fabvote.nodePolicy" -}}
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: {{ .name }}
  labels: {{- include "fabvote.labels" .root | nindent 4 }}
spec:
  podSelector:
    matchLabels:
      app.kubernetes.io/instance: {{ .root.Release.Name }}
      app.kubernetes.io/name: {{ .name }}
  policyTypes: [Ingress]
  ingress:
    - ports:
        {{- range .public }}
        - {port: {{ . }}}
        {{- end }}
    - from:
        - namespaceSelector: {{- toYaml .root.Values.monitoring.namespaceSelector | nindent 12 }}
      ports:
        - {port: operations}
{{- end -}}
