# SPDX-License-Identifier: Apache-2.0
# Conan 2 recipe of kubex (conan/README.md): builds the libraries from this source tree with
# the project's own CMake and packages what `cmake --install` installs, CMake package included.
#
#   conan create . -pr:a conan/profiles/debian12 -s build_type=RelWithDebInfo
#
# The dependencies carry ConanCenter's names and version ranges. The project's profiles
# declare them [platform_requires]: Debian's packages provide them, Conan neither builds nor
# downloads them, and the build's find_package() finds them in /usr as in any other build.
import os
import re

from conan import ConanFile
from conan.tools.build import check_min_cppstd
from conan.tools.cmake import CMake, CMakeDeps, CMakeToolchain, cmake_layout
from conan.tools.files import copy, load, rmdir

required_conan_version = ">=2.0"


class KubexConan(ConanFile):
    name = "kubex"
    description = "Kubernetes API client library for C++20"
    license = "Apache-2.0"
    topics = ("kubernetes", "client", "asio", "coroutines")
    package_type = "library"
    settings = "os", "arch", "compiler", "build_type"
    options = {"shared": [True, False], "fPIC": [True, False]}
    default_options = {"shared": False, "fPIC": True}
    # What the libraries' build reads; tests, examples and benchmarks are not built here.
    exports_sources = (
        "CMakeLists.txt", "LICENSE", "NOTICE",
        "cmake/*", "core/*", "models/*", "client/*", "runtime/*", "testing/*",
        "tools/codegen/*", "!tools/codegen/tests/*",
    )

    def set_version(self):
        # The one version of truth is project(VERSION) in CMakeLists.txt.
        text = load(self, os.path.join(self.recipe_folder, "CMakeLists.txt"))
        match = re.search(r"project\(\s*kubex\s+VERSION\s+([0-9]+\.[0-9]+\.[0-9]+)", text)
        if not match:
            raise ValueError("conanfile.py: no project(kubex VERSION x.y.z) in CMakeLists.txt")
        self.version = match.group(1)

    def config_options(self):
        if self.settings.os == "Windows":
            del self.options.fPIC

    def configure(self):
        if self.options.shared:
            self.options.rm_safe("fPIC")

    def layout(self):
        cmake_layout(self)

    def requirements(self):
        # Boost's headers (Asio, Beast) appear in kubex's public headers; the others are private
        # to the libraries, linked into the consumer only when kubex is static.
        self.requires("boost/[>=1.81 <2]", transitive_headers=True)
        self.requires("openssl/[>=3 <4]")
        self.requires("libnghttp2/[>=1.43 <2]")
        self.requires("simdjson/[>=3 <5]")
        self.requires("yaml-cpp/[>=0.7 <1]")
        self.requires("zlib/[>=1.2.11 <2]")

    def validate(self):
        check_min_cppstd(self, 20)

    def generate(self):
        tc = CMakeToolchain(self)
        tc.cache_variables["KUBEX_BUILD_TESTS"] = False
        tc.cache_variables["KUBEX_BUILD_EXAMPLES"] = False
        tc.cache_variables["KUBEX_BUILD_BENCH_SUITE"] = False
        tc.generate()
        # Writes nothing for [platform_requires] dependencies (find_package then finds the
        # system's); writes their config files where they are Conan packages.
        CMakeDeps(self).generate()

    def build(self):
        cmake = CMake(self)
        cmake.configure()
        cmake.build(target="kubex_libraries")

    def package(self):
        CMake(self).install()
        # share/doc/<Debian package>/ is for the .debs (cmake/KubexPackaging.cmake); the
        # license files go to licenses/, where Conan looks for them.
        rmdir(self, os.path.join(self.package_folder, "share", "doc"))
        for name in ("LICENSE", "NOTICE"):
            copy(self, name, self.source_folder, os.path.join(self.package_folder, "licenses"))

    def package_info(self):
        # Consumers use the CMake package kubex installs (lib/cmake/kubex/kubexConfig.cmake:
        # its targets, components and find_dependency() calls), not one Conan would generate
        # from a hand-kept copy of the same link interface: CMakeDeps writes nothing for kubex,
        # and the builddir puts the installed config on CMAKE_PREFIX_PATH (CMakeToolchain).
        self.cpp_info.set_property("cmake_find_mode", "none")
        self.cpp_info.builddirs = [os.path.join("lib", "cmake", "kubex")]
