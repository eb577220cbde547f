"""Which packages the distribution holds (everything else is in pyproject.toml).

agents/, play/, train/, eval/ and configs/ are top-level folders of the checkout that install as
``muggins_env.agents``, ... (so that ``import agents`` never collides with another
distribution's package). pyproject.toml can map them but cannot find the packages below a
mapped folder, so they are found here: every folder under a root is a package, a folder of
data files (``configs/<env_id>/``, the zoo's model folders, a ``static/`` folder) a namespace
package whose files ship as package data (pyproject.toml: every file of every package). A new
subpackage or data folder therefore needs no edit; ROOTS is the one place to add a new
top-level folder.
"""

from setuptools import find_namespace_packages, setup

#: installed package name -> folder of the checkout
ROOTS = {
    "muggins_env": "muggins_env",
    "muggins_env.agents": "agents",
    "muggins_env.play": "play",
    "muggins_env.train": "train",
    "muggins_env.eval": "eval",
    "muggins_env.configs": "configs",
}
NOT_PACKAGES = ["__pycache__", "*.__pycache__", "*.egg-info", "*.egg-info.*"]


def packages() -> list[str]:
    found = []
    for name, folder in ROOTS.items():
        found.append(name)
        found += [f"{name}.{sub}" for sub in find_namespace_packages(folder, exclude=NOT_PACKAGES)]
    return found


setup(package_dir=ROOTS, packages=packages())
