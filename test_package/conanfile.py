# SPDX-License-Identifier: Apache-2.0
# Builds and runs test_package.cpp against the kubex package that `conan create` made. With
# KUBEX_TESTENV_KUBECONFIG set (scripts/with-testenv.sh), the program lists the namespaces of
# that apiserver; without it, it prints the version only.
import os

from conan import ConanFile
from conan.tools.build import can_run
from conan.tools.cmake import CMake, cmake_layout


class KubexTestPackageConan(ConanFile):
    settings = "os", "arch", "compiler", "build_type"
    generators = "CMakeDeps", "CMakeToolchain"

    def requirements(self):
        self.requires(self.tested_reference_str)

    def layout(self):
        cmake_layout(self)

    def build(self):
        cmake = CMake(self)
        cmake.configure()
        cmake.build()

    def test(self):
        if not can_run(self):
            return
        program = os.path.join(self.cpp.build.bindir, "kubex_test_package")
        # The program reads KUBEX_TESTENV_KUBECONFIG itself; say here which run this is.
        if os.environ.get("KUBEX_TESTENV_KUBECONFIG"):
            self.output.info("test_package: against the apiserver of KUBEX_TESTENV_KUBECONFIG")
        self.run(program, env="conanrun")
