"""One module (or package) per paper's experiment, each registering its runner with
:func:`axiomatic.experiments.engine.register_experiment`; the engine's registry imports a
module when its experiment is looked up (``axiomatic.experiments.<name>``, ``-`` as ``_``)."""
