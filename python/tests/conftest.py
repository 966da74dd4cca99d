# SPDX-License-Identifier: BSD-2-Clause
"""pytest options for the j2kfront module's tests: --backend names the backend under test."""
import pytest


def pytest_addoption(parser):
    parser.addoption("--backend", default="cpu", choices=["cpu", "cuda", "opencl"],
                     help="the backend under test; a GPU backend is checked against the CPU's results")


@pytest.fixture
def backend(request):
    return request.config.getoption("--backend")
