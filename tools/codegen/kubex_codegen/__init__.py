# SPDX-License-Identifier: Apache-2.0
"""kubex's model generator: typed C++ models from Kubernetes' OpenAPI v3 documents."""
