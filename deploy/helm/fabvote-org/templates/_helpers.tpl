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
