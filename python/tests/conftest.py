"""Tests import devtcp from this source tree (python/), unless
DEVTCP_TEST_INSTALLED=1 asks for the installed package."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
if not os.environ.get("DEVTCP_TEST_INSTALLED"):
    sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)   # fakecapi
