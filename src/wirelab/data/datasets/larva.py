"""The larval *Drosophila* connectome's published files (Winding et al. 2023, data S1): one zip
of synapse-count matrices by edge type and annotations, read by `wirelab.data.connectomes.larva`.
"""

from __future__ import annotations

from wirelab.data.datasets.base import Dataset, RemoteFile

LARVA = Dataset(
    description=(
        "Larval Drosophila whole-brain connectome (Winding et al. 2023), supplementary data S1: "
        "synapse-count matrices by edge type and pair/cell-type annotations."
    ),
    citation="Winding M. et al. The connectome of an insect brain. Science 379, eadd9330 (2023).",
    files=(
        RemoteFile(
            path="connectome/winding2023-Supplementary-Data-S1.zip",
            urls=(
                "https://github.com/brain-networks/larval-drosophila-connectome/raw/main/"
                "Supplementary-Data-S1.zip",
                "https://raw.githubusercontent.com/brain-networks/larval-drosophila-connectome/"
                "main/data/Supplementary-Data-S1.zip",
            ),
            sha256="8c1f43809ed5d527ba61b154e377cc21da26383a75eda8aab85ce05607a72a4c",
            size=1107380,
        ),
    ),
)
