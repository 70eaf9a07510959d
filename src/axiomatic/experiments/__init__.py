"""One module per paper's experiment: ``rosset2019`` (axiomatic regularization) and
``rennings_augment`` (training on diagnostic instances). Imported on demand."""
