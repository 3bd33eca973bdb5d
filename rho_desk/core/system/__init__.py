"""What rho-desk asks of the machine: its own folders (``dirs``) and their ownership rule
(``paths``), durable atomic writes (``fsio``), and the C heap and the cyclic GC during large jobs
(``allocator``, ``collector``)."""
