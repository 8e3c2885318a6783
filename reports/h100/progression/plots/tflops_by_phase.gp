# tflops_by_phase.gp: rendered by attnlab-report from the newest ok record of every phase and shape under ../records.
# Edits are overwritten on the next render; to restyle, copy this file. Render it
# from this directory with: gnuplot tflops_by_phase.gp (reads tflops_by_phase.dat, writes tflops_by_phase.png)
set terminal pngcairo size 900,1730 enhanced font 'DejaVu Sans,10'
set output 'tflops_by_phase.png'
set multiplot layout 5,2 title "TFLOPS by phase, one panel per shape: newest ok record, headline regime at device time; points: median, bars: p10-p90 (linear axes)\nfilled: busy time, hollow: span only; circle: the board and session of most figures, triangle: another board (§), square: another session on it (¶)" noenhanced font ',9'
set ylabel 'TFLOPS'
unset key
set grid ytics lc rgb '#dddddd'
set errorbars large
set xtics ('1' 0, '2' 1, '3a' 2, '3b' 3, '3c' 4, '4' 5, '4x' 6, '5' 7, 'd1' 8, 'd2' 9, 'd3' 10, 'd4' 11, 'cudnn' 12, 'sdpa-cudnn' 13, 'sdpa-efficient' 14, 'sdpa-flash' 15) rotate by -60 font ',7' noenhanced
set xrange [-0.7:15.7]

set title 'latency 1x8x512x64' noenhanced font ',9'
set yrange [0:123.787486]
plot 'tflops_by_phase.dat' index 0 using 1:2:3:4:6 with yerrorbars pt variable ps 1.1 lw 1.5 lc rgb '#1f77b4', \
     'tflops_by_phase.dat' index 0 using 1:4:5 with labels rotate by 90 left offset 0,0.4 font ',7' noenhanced

set title '1x32x512x64:hkv=8' noenhanced font ',9'
set yrange [0:300.986599]
plot 'tflops_by_phase.dat' index 1 using 1:2:3:4:6 with yerrorbars pt variable ps 1.1 lw 1.5 lc rgb '#1f77b4', \
     'tflops_by_phase.dat' index 1 using 1:4:5 with labels rotate by 90 left offset 0,0.4 font ',7' noenhanced

set title '1x8x1024x64' noenhanced font ',9'
set yrange [0:287.609417]
plot 'tflops_by_phase.dat' index 2 using 1:2:3:4:6 with yerrorbars pt variable ps 1.1 lw 1.5 lc rgb '#1f77b4', \
     'tflops_by_phase.dat' index 2 using 1:4:5 with labels rotate by 90 left offset 0,0.4 font ',7' noenhanced

set title 'throughput 16x16x2048x64' noenhanced font ',9'
set yrange [0:655.976366]
plot 'tflops_by_phase.dat' index 3 using 1:2:3:4:6 with yerrorbars pt variable ps 1.1 lw 1.5 lc rgb '#1f77b4', \
     'tflops_by_phase.dat' index 3 using 1:4:5 with labels rotate by 90 left offset 0,0.4 font ',7' noenhanced

set title '1x8x512x128' noenhanced font ',9'
set yrange [0:187.183815]
plot 'tflops_by_phase.dat' index 4 using 1:2:3:4:6 with yerrorbars pt variable ps 1.1 lw 1.5 lc rgb '#1f77b4', \
     'tflops_by_phase.dat' index 4 using 1:4:5 with labels rotate by 90 left offset 0,0.4 font ',7' noenhanced

set title '4x16x4096x128' noenhanced font ',9'
set yrange [0:850.811294]
plot 'tflops_by_phase.dat' index 5 using 1:2:3:4:6 with yerrorbars pt variable ps 1.1 lw 1.5 lc rgb '#1f77b4', \
     'tflops_by_phase.dat' index 5 using 1:4:5 with labels rotate by 90 left offset 0,0.4 font ',7' noenhanced

set title '1x8x512x64:causal' noenhanced font ',9'
set yrange [0:62.5669657]
plot 'tflops_by_phase.dat' index 6 using 1:2:3:4:6 with yerrorbars pt variable ps 1.1 lw 1.5 lc rgb '#1f77b4', \
     'tflops_by_phase.dat' index 6 using 1:4:5 with labels rotate by 90 left offset 0,0.4 font ',7' noenhanced

set title '16x16x2048x64:causal' noenhanced font ',9'
set yrange [0:553.524702]
plot 'tflops_by_phase.dat' index 7 using 1:2:3:4:6 with yerrorbars pt variable ps 1.1 lw 1.5 lc rgb '#1f77b4', \
     'tflops_by_phase.dat' index 7 using 1:4:5 with labels rotate by 90 left offset 0,0.4 font ',7' noenhanced

set title '4x16x4096x128:causal' noenhanced font ',9'
set yrange [0:765.091574]
plot 'tflops_by_phase.dat' index 8 using 1:2:3:4:6 with yerrorbars pt variable ps 1.1 lw 1.5 lc rgb '#1f77b4', \
     'tflops_by_phase.dat' index 8 using 1:4:5 with labels rotate by 90 left offset 0,0.4 font ',7' noenhanced
unset multiplot
