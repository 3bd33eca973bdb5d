"""What rho-desk asks of the machine: its own folders (``dirs``) and their ownership rule
(``paths``), durable atomic writes (``fsio``), and the C heap during large jobs (``allocator``)."""
