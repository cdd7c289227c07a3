# deploy/helm/helm.mk — the Kubernetes Helm chart (deploy/helm/fabvote-org).
# Included by the top-level Makefile (ROOT, BUILD, GO come from there).
#
#   make helm-test   builds helm and kubeconform from their Go modules into
#                    build/tools, writes the Kubernetes release's JSON Schemas
#                    (from its swagger.json in the k8s.io/kubernetes module)
#                    into build/k8s-schemas, then renders every example with
#                    helm template and validates it with kubeconform -strict
#                    (deploy/helm/chart_test.go). .ci/run runs it after
#                    make test: building helm takes about 3 minutes, which
#                    make test's 45-minute budget does not have

HELM_VERSION        := v3.22.0
KUBECONFORM_VERSION := v0.6.7
K8S_VERSION         := v1.34.4
HELM_TOOLS          := $(BUILD)/tools
K8S_SCHEMAS         := $(BUILD)/k8s-schemas/$(K8S_VERSION)
# The kinds the chart renders.
K8S_KINDS           := ConfigMap,Service,StatefulSet,Deployment,NetworkPolicy

.PHONY: helm-test

$(HELM_TOOLS)/helm-$(HELM_VERSION):
	mkdir -p $(HELM_TOOLS)
	GOBIN=$(HELM_TOOLS) $(GO) install helm.sh/helm/v3/cmd/helm@$(HELM_VERSION)
	mv $(HELM_TOOLS)/helm $@

$(HELM_TOOLS)/kubeconform-$(KUBECONFORM_VERSION):
	mkdir -p $(HELM_TOOLS)
	GOBIN=$(HELM_TOOLS) $(GO) install github.com/yannh/kubeconform/cmd/kubeconform@$(KUBECONFORM_VERSION)
	mv $(HELM_TOOLS)/kubeconform $@

# go mod download runs outside this module so that go.mod is not touched.
$(K8S_SCHEMAS)/.done: $(ROOT)/deploy/helm/k8sschema/main.go $(ROOT)/deploy/helm/helm.mk
	dir=$$(cd / && $(GO) mod download -json k8s.io/kubernetes@$(K8S_VERSION) | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$$/\1/p') && \
	test -f "$$dir/api/openapi-spec/swagger.json" && \
	$(GO) run ./deploy/helm/k8sschema --swagger "$$dir/api/openapi-spec/swagger.json" --out $(K8S_SCHEMAS) --kinds $(K8S_KINDS)
	touch $@

helm-test: $(HELM_TOOLS)/helm-$(HELM_VERSION) $(HELM_TOOLS)/kubeconform-$(KUBECONFORM_VERSION) $(K8S_SCHEMAS)/.done
	cd $(ROOT)/deploy/helm && FABVOTE_HELM=$(HELM_TOOLS)/helm-$(HELM_VERSION) \
		FABVOTE_KUBECONFORM=$(HELM_TOOLS)/kubeconform-$(KUBECONFORM_VERSION) FABVOTE_K8S_SCHEMAS=$(K8S_SCHEMAS) \
		$(GO) test -count=1 -v -run . .

