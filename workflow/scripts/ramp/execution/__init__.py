"""Running untrusted programs: a language-generic sandbox, a judge and the Test Executor.

Import from the submodules (``ramp.execution.executor``, ``.runtime``, ``.judge``); this
package file stays empty so that importing the judge never probes cgroups or namespaces.
"""
