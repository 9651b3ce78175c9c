"""The package's version: meson.build's project() version.

`meson install` installs a copy of this file written from meson.build
(python/meson.build); a pip install of this folder cannot see meson.build and
takes this file as it is (pyproject.toml reads __version__ from here), so the
test python-version (suites lint and python) fails when it differs from
meson.build's."""
__version__ = "0.2.0"
